/// \file
/// The LLVM code generator: lowered functions in packed-API form (see `compiler/lower/lower.h`)
/// become native code for an LLVM target, wrapped as a `runtime::Module` (see `llvm_module.h`).
#ifndef TESSERA_COMPILER_CODEGEN_LLVM_CODEGEN_LLVM_H_
#define TESSERA_COMPILER_CODEGEN_LLVM_CODEGEN_LLVM_H_

#include <vector>

#include "compiler/codegen/llvm/llvm_target.h"
#include "compiler/ir/function.h"
#include "runtime/module.h"

namespace tessera {
namespace codegen {

/// Translates `functions` (each with the six packed-API parameters) into one LLVM module for
/// `target` and returns it as a runtime module exposing every function under its name.
/// Parallel loops run on the runtime thread pool; vector types map to LLVM vectors; a failed
/// `AssertStmt` sets the runtime's last error and returns -1. Throws `UserError` for a target LLVM
/// does not know and `InternalError` for IR that is not in lowered form.
runtime::Module BuildLLVM(const std::vector<ir::PrimFunc>& functions, const LLVMTargetSpec& target);

}  // namespace codegen
}  // namespace tessera

#endif  // TESSERA_COMPILER_CODEGEN_LLVM_CODEGEN_LLVM_H_
