/// \file
/// Turning a target description (triple, CPU, features) into an LLVM `TargetMachine`, with
/// user errors for names LLVM does not know.
#ifndef TESSERA_COMPILER_CODEGEN_LLVM_LLVM_TARGET_H_
#define TESSERA_COMPILER_CODEGEN_LLVM_LLVM_TARGET_H_

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class TargetMachine;
}  // namespace llvm

namespace tessera {
namespace codegen {

/// What the LLVM code generator needs to know about where code runs. Empty fields mean "the
/// host's triple" and "a generic CPU"; `mcpu` "native" means this machine's CPU and features.
struct LLVMTargetSpec {
  std::string mtriple;              ///< e.g. "aarch64-linux-gnu"; "" = this process's triple
  std::string mcpu;                 ///< e.g. "skylake-avx512", "native"; "" = generic
  std::vector<std::string> mattrs;  ///< e.g. {"+avx2", "-avx512f"}, applied after the CPU's own
};

/// The spec with "" and "native" replaced by concrete names: the full triple, the CPU name and
/// the complete feature string LLVM will use.
struct ResolvedLLVMTarget {
  std::string triple;    ///< normalized triple
  std::string cpu;       ///< CPU name ("generic" when none was asked for)
  std::string features;  ///< comma-separated "+f"/"-f" list
  bool runs_on_host;     ///< true when this process can execute code for `triple`
};

/// Resolves `spec`; throws `UserError` when LLVM has no backend for the triple or does not know
/// the CPU, naming the value and the target.
ResolvedLLVMTarget ResolveLLVMTarget(const LLVMTargetSpec& spec);

/// The SIMD registers compiled code has for floating point on `target`: their width and how many
/// there are (x86: AVX-512 32 × 512 bits, AVX 16 × 256, SSE 16 × 128; AArch64 NEON 32 × 128;
/// other architectures 16 × 128, a guess that keeps register tiles small).
struct VectorRegisters {
  int bits = 128;  ///< width of one register
  int count = 16;  ///< registers the register allocator can use
};

/// The vector registers of `target`, from its architecture and its CPU's features.
VectorRegisters VectorRegistersOf(const ResolvedLLVMTarget& target);

/// True when `target`'s CPU and features include every feature of `features` ("+avx512vnni",
/// "+avx512vnni,+avx512vl"); false for a target LLVM has no subtarget for.
bool HasFeatures(const ResolvedLLVMTarget& target, const std::string& features);

/// A target machine for `target` emitting position-independent code with floating-point
/// multiply-add contraction allowed (fused multiply-add where the CPU has it), at code generation
/// level `level` (an `llvm::CodeGenOpt::Level`; default: aggressive).
std::unique_ptr<llvm::TargetMachine> CreateTargetMachine(const ResolvedLLVMTarget& target,
                                                         int level = 3);

}  // namespace codegen
}  // namespace tessera

#endif  // TESSERA_COMPILER_CODEGEN_LLVM_LLVM_TARGET_H_
