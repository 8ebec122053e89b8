/// \file
/// The deployable artifact (`model.tsr`): one self-checking file holding a compiled model's
/// kernel library, execution graph and parameters behind a header that says what it needs
/// (format version, Tessera version, target string, architecture, CPU features, input and output
/// signatures). The layout is in docs/deploy.md. This library depends on the runtime only, so
/// a board loads artifacts without the compiler.
#ifndef TESSERA_DEPLOY_ARTIFACT_H_
#define TESSERA_DEPLOY_ARTIFACT_H_

#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/version.h"
#include "runtime/graph_executor.h"

namespace tessera {
namespace deploy {

/// Version of the artifact format this code writes for a model of several batch sizes, and the
/// newest it reads (a model of fixed shapes is written as version 2, which older runtimes read).
constexpr uint32_t kArtifactFormatVersion = 3;
/// The format version of an artifact without batch buckets.
constexpr uint32_t kFixedShapeFormatVersion = 2;
/// The magic bytes every artifact starts with.
constexpr const char kArtifactMagic[8] = {'T', 'E', 'S', 'S', 'E', 'R', 'A', 'M'};

/// `ArtifactHeader::kernel_format` of kernels compiled ahead of time into a shared library.
constexpr const char* kSharedLibraryKernels = "shared-library";
/// `ArtifactHeader::kernel_format` of kernels shipped as C source and compiled by the machine that
/// loads them (`--target c`); their artifacts run on any architecture (`arch any`).
constexpr const char* kCSourceKernels = "c-source";
/// `ArtifactHeader::kernel_format` of kernels for a CUDA GPU (`--target cuda`): their PTX and host
/// launchers in the CUDA module's text format (`runtime/cuda_module.h`); the driver compiles the
/// PTX for the loading machine's GPU, so their artifacts say `arch any`.
constexpr const char* kCUDAKernels = "cuda-ptx";
/// `ArtifactHeader::arch` of an artifact that runs on any architecture.
constexpr const char* kAnyArch = "any";

/// Name, element type and shape of a model input or output.
struct TensorSignature {
  std::string name;            ///< tensor name in the model
  DLDataType dtype{};          ///< element type
  std::vector<int64_t> shape;  ///< dimensions; -1 at `batch_axis`
  /// The dimension that is the batch, in an artifact of batch buckets (`N` in the header's
  /// shape); -1: none (a model of fixed shapes).
  int batch_axis = -1;

  /// This tensor at batch `batch`: its batch dimension set to `batch` and no batch axis left (a
  /// signature without a batch dimension as it is).
  TensorSignature AtBatch(int64_t batch) const {
    TensorSignature t = *this;
    if (t.batch_axis >= 0) t.shape[static_cast<size_t>(t.batch_axis)] = batch;
    t.batch_axis = -1;
    return t;
  }
};

/// What an artifact says about itself and what it needs from the machine that runs it.
struct ArtifactHeader {
  uint32_t format_version = kFixedShapeFormatVersion;  ///< layout version of the file
  std::string tessera_version = kTesseraVersion;       ///< release that wrote it
  std::string target;                                  ///< target string it was compiled for
  std::string arch;                                    ///< "x86_64", "aarch64", ..., or "any"
  std::string kernel_format = kSharedLibraryKernels;   ///< what the kernels section holds
  std::vector<std::string> cpu_features;  ///< CPU features the kernels use (LLVM names)
  std::vector<TensorSignature> inputs;    ///< model inputs, in order
  std::vector<TensorSignature> outputs;   ///< model outputs, in order
  /// The batch sizes the artifact holds a build of, ascending (`tessera compile --batch`); empty
  /// for a model of fixed shapes. Any batch runs: the smallest bucket that holds it, padded, or
  /// chunks of the largest (`deploy/batch_run.h`).
  std::vector<int64_t> batch_buckets;
};

/// The kernels and execution graph of one batch bucket.
struct ArtifactBucket {
  std::string kernels;  ///< as `Artifact::kernels`
  std::string graph;    ///< as `Artifact::graph`
};

/// An artifact's contents, in memory.
struct Artifact {
  ArtifactHeader header;  ///< the header
  std::string kernels;    ///< the kernel shared library's bytes, C source or CUDA (`kernel_format`)
  std::string graph;      ///< `runtime::ExecGraph` text
  std::string params;     ///< `runtime::SaveParams` bytes (of every bucket)
  /// The buckets after the first (`header.batch_buckets[1...]`); `kernels` and `graph` are the
  /// first's.
  std::vector<ArtifactBucket> other_buckets;
};

/// The machine an artifact is checked against.
struct HostInfo {
  std::string arch;                       ///< this process's architecture
  std::vector<std::string> cpu_features;  ///< the checkable features this CPU has
  /// This machine. `TESSERA_HIDE_CPU_FEATURES=avx2,fma` pretends the CPU lacks those features
  /// (to try the refusal an older CPU would give).
  static HostInfo Current();
};

/// The architecture this code was compiled for ("x86_64", "aarch64").
std::string HostArch();
/// The CPU features of `arch` that the loader can detect at run time (LLVM feature names); an
/// artifact records which of these its kernels use.
std::vector<std::string> CheckableCPUFeatures(const std::string& arch);

/// The checksum of an artifact of `format_version` over `data` (every byte after the prefix):
/// FNV-1a 64 for version 1, XXH64 (seed 0) from version 2 on.
uint64_t ArtifactChecksum(uint32_t format_version, const char* data, size_t n);

/// Serializes `artifact` in its header's format version (the checksum is computed here); batch
/// buckets need version 3.
std::string SerializeArtifact(const Artifact& artifact);
/// Parses and checks the file format: magic, format version, size, checksum, header and section
/// bounds. Throws `runtime::Error` naming `source` and saying what is wrong (truncated, corrupt,
/// newer format, ...).
Artifact ParseArtifact(const std::string& bytes, const std::string& source);
/// Throws `runtime::Error` naming `source` when `header` was built for another architecture or
/// needs CPU features `host` lacks.
void CheckRunsOn(const ArtifactHeader& header, const HostInfo& host, const std::string& source);
/// Reads a whole file; throws `runtime::Error` naming `path` when it cannot.
std::string ReadArtifactFile(const std::string& path);
/// Writes `SerializeArtifact(artifact)` to `path`; throws `runtime::Error` when it cannot.
void SaveArtifact(const Artifact& artifact, const std::string& path);

/// The signatures of the tensors `ids` of `graph` (its inputs or outputs), in order: what an
/// artifact's header says of them (without batch axes).
std::vector<TensorSignature> TensorSignatures(const runtime::ExecGraph& graph,
                                              const std::vector<int>& ids);

/// The thread count `target` names (`-num-threads=N`), or 0 when it names none.
int TargetThreadCount(const std::string& target);

/// Sizes the runtime's thread pool for running a model of `header` and returns the threads its
/// runs use: `requested` when positive (the caller's explicit choice), else `TESSERA_NUM_THREADS`
/// when set, else the count the artifact's target names (a model tuned and built for one thread
/// runs on one), else every core. Called before runs by `tessera run`, `tessera-run`, the model C
/// API and fleet devices.
int UseModelThreads(const ArtifactHeader& header, int requested = 0);

/// A loaded artifact: its header and an executor ready to run.
struct LoadedModel {
  ArtifactHeader header;            ///< what the file says about itself
  runtime::GraphExecutor executor;  ///< the model, prepared (the first batch bucket's)
  /// The executors of `header.batch_buckets[1...]`, in order.
  std::vector<runtime::GraphExecutor> other_buckets;
};

/// Parses `bytes`, checks it runs on `host`, loads the kernel library from memory (a memfd, else
/// a private temporary file; C source kernels are first compiled there by this machine's C
/// compiler, `$TESSERA_CC` or `cc`; CUDA kernels go to GPU 0, which must exist and be at least
/// the target's `-arch`) and prepares the executor. Throws `runtime::Error` naming `source`
/// ("no CUDA device: ..." for CUDA kernels on a machine without a usable GPU).
LoadedModel LoadArtifactBytes(const std::string& bytes, const std::string& source,
                              const HostInfo& host = HostInfo::Current());
/// `LoadArtifactBytes` of the file at `path`, mapped into memory rather than read (the sections
/// are used in place).
LoadedModel LoadArtifact(const std::string& path, const HostInfo& host = HostInfo::Current());

}  // namespace deploy
}  // namespace tessera

#endif  // TESSERA_DEPLOY_ARTIFACT_H_
