/// \file
/// `Target`: where compiled code runs, parsed from the strings users already know:
/// `llvm -mcpu=skylake-avx512 -mattr=+avx2,-avx512f`, `llvm -mtriple=aarch64-linux-gnu`, `c`,
/// `cuda -arch=sm_90 [-fast-math=1]`. CPU targets take `-num-threads=N`: the thread count the
/// code is meant to run at, which tuning measures candidates at and builds match records by
/// (no `-num-threads`: the runtime's default, all cores or `TESSERA_NUM_THREADS`).
#ifndef TESSERA_COMPILER_DRIVER_TARGET_H_
#define TESSERA_COMPILER_DRIVER_TARGET_H_

#include <cstdint>
#include <string>
#include <vector>

namespace tessera {

/// The code generator a target selects.
enum class TargetKind {
  kLLVM,  ///< native code through LLVM (host or cross)
  kC,     ///< portable C source compiled with the system C compiler
  kCUDA,  ///< CUDA C for NVIDIA GPUs
};

/// A parsed target string. Construction validates the syntax and the option names; a bad string
/// throws `UserError` quoting it and listing what is accepted.
class Target {
 public:
  /// Parses `spec`, e.g. "llvm -mcpu=native". Throws `UserError` when it is unknown or malformed.
  explicit Target(const std::string& spec);

  /// The code generator this target selects.
  TargetKind kind() const { return kind_; }
  /// "llvm", "c" or "cuda".
  const std::string& kind_name() const { return kind_name_; }
  /// LLVM target triple ("" = the host's).
  const std::string& mtriple() const { return mtriple_; }
  /// CPU name for LLVM ("" = generic for the triple, "native" = this machine's CPU).
  const std::string& mcpu() const { return mcpu_; }
  /// CPU features, each "+name" or "-name", in the order given.
  const std::vector<std::string>& mattrs() const { return mattrs_; }
  /// Threads of the runtime's pool the code is tuned for (`-num-threads=N`; 0 = the runtime's
  /// default).
  int num_threads() const { return num_threads_; }
  /// CUDA architecture, e.g. "sm_90" ("" = the driver's device default).
  const std::string& arch() const { return arch_; }
  /// CUDA: use fast, less accurate math intrinsics (`-fast-math=1`; default off).
  bool fast_math() const { return fast_math_; }
  /// The canonical spelling: kind, then the options in a fixed order.
  std::string str() const;

  /// What target strings look like, for error messages and help texts.
  static const char* AcceptedForms();

 private:
  TargetKind kind_ = TargetKind::kLLVM;
  std::string kind_name_;
  std::string mtriple_;
  std::string mcpu_;
  std::vector<std::string> mattrs_;
  int num_threads_ = 0;
  std::string arch_;
  bool fast_math_ = false;
};

/// Same canonical spelling.
inline bool operator==(const Target& a, const Target& b) { return a.str() == b.str(); }

/// The processor family a target's code runs on.
enum class TargetFamily {
  kX86,      ///< x86-64, and any CPU that is neither aarch64 nor a GPU
  kAArch64,  ///< 64-bit Arm (`-mtriple=aarch64-...` or `arm64-...`)
  kCUDA,     ///< NVIDIA GPUs
};

/// The family of `target`: CUDA for `cuda`; for CPU targets the triple's architecture, or this
/// machine's when the triple is empty (the host's, as for `c` and `llvm -mcpu=native`).
TargetFamily FamilyOf(const Target& target);

/// The hardware figures the model planner weighs, one conservative set per target family (the
/// slowest board of the family should still find the choices they justify right).
struct TargetHardware {
  /// Bytes per second one core streams from memory: what a layout pass over a tensor costs.
  double memory_bytes_per_s;
  /// Bytes of one core's L2 cache: data larger than this streams from L3 or memory.
  int64_t l2_bytes;
  /// Bytes of cache a model's weights can stay in from one run to the next (the last level one
  /// core can count on, conservatively): a model whose weights exceed it reads them from memory
  /// on every run, and its kernels are tuned so (`ModelTask::cold_weights`).
  int64_t cache_bytes;
};

/// The hardware figures of `target` (bandwidth, L2, cache kept between runs): x86 10 GB/s (a
/// pessimistic single core), 1 MB and 8 MB; aarch64 by `-mcpu` (cortex-a53 2 GB/s, 512 KB and
/// 512 KB, cortex-a55 3 GB/s, 256 KB and 1 MB, cortex-a72 4 GB/s, 1 MB and 1 MB, cortex-a76
/// 8 GB/s, 512 KB and 2 MB, cortex-a78 10 GB/s, 512 KB and 2 MB, neoverse-n1 15 GB/s, 1 MB and
/// 8 MB, neoverse-v1 20 GB/s, 1 MB and 8 MB, apple-m1 60 GB/s, 12 MB and 12 MB), else 4 GB/s,
/// 512 KB and 1 MB; CUDA 300 GB/s, 2 MB and 40 MB.
TargetHardware HardwareOf(const Target& target);

}  // namespace tessera

#endif  // TESSERA_COMPILER_DRIVER_TARGET_H_
