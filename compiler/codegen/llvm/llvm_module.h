/// \file
/// The runtime module behind LLVM-generated code: compiled in-process with ORC LLJIT on first
/// use (for fast measurement), printable as LLVM IR or assembly, exportable as a shared library
/// or an object file.
#ifndef TESSERA_COMPILER_CODEGEN_LLVM_LLVM_MODULE_H_
#define TESSERA_COMPILER_CODEGEN_LLVM_LLVM_MODULE_H_

#include <memory>
#include <string>
#include <vector>

#include "compiler/codegen/llvm/llvm_target.h"
#include "runtime/module.h"

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace tessera {
namespace codegen {

/// Wraps `module` (created in `context`, its functions following `TesseraPackedCFunc`) as a
/// `runtime::Module` of type "llvm" exposing `function_names`. The module is verified (a broken
/// module is an `InternalError`), given `__tessera_abi_version`, and optimized at -O3 for
/// `target`.
///
/// The result's `GetSource` accepts "ll" (LLVM IR, the default) and "asm"/"s" (assembly);
/// `export_library(path)` links a shared library with the system linker (the cross compiler for
/// another triple), or writes a relocatable object when `path` ends in ".o". Functions run only
/// when `target.runs_on_host`; otherwise looking one up throws `runtime::Error` explaining that the
/// library must be exported and loaded on the device.
runtime::Module CreateLLVMModule(std::unique_ptr<llvm::LLVMContext> context,
                                 std::unique_ptr<llvm::Module> module,
                                 const ResolvedLLVMTarget& target,
                                 std::vector<std::string> function_names);

}  // namespace codegen
}  // namespace tessera

#endif  // TESSERA_COMPILER_CODEGEN_LLVM_LLVM_MODULE_H_
