#include "compiler/driver/vector_unit.h"

#include <llvm/ADT/Triple.h>

#include <algorithm>

#include "compiler/codegen/llvm/llvm_target.h"

namespace tessera {

topi::VectorUnit VectorUnitOf(const Target& target) {
  if (target.kind() != TargetKind::kLLVM) return {4, 16};
  const codegen::VectorRegisters registers = codegen::VectorRegistersOf(
      codegen::ResolveLLVMTarget({target.mtriple(), target.mcpu(), target.mattrs()}));
  return {registers.bits / 32, registers.count, HardwareOf(target).l2_bytes,
          std::max(1, target.num_threads())};
}

bool HasByteDotProduct(const Target& target) {
  if (target.kind() != TargetKind::kLLVM) return false;
  const codegen::ResolvedLLVMTarget resolved =
      codegen::ResolveLLVMTarget({target.mtriple(), target.mcpu(), target.mattrs()});
  if (llvm::Triple(resolved.triple).isAArch64()) {
    return codegen::HasFeatures(resolved, "+dotprod") || codegen::HasFeatures(resolved, "+i8mm");
  }
  return llvm::Triple(resolved.triple).isX86() && (codegen::HasFeatures(resolved, "+avx512vnni") ||
                                                   codegen::HasFeatures(resolved, "+avxvnni"));
}

}  // namespace tessera
