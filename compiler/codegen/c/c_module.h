/// \file
/// Building C modules: generated C is compiled by the system C compiler into a shared library,
/// loaded with `runtime::Module::LoadFromFile`, and wrapped so that `GetSource("c")` returns the
/// source and `export_library` writes the library.
#ifndef TESSERA_COMPILER_CODEGEN_C_C_MODULE_H_
#define TESSERA_COMPILER_CODEGEN_C_C_MODULE_H_

#include <string>
#include <vector>

#include "compiler/ir/function.h"
#include "runtime/module.h"

namespace tessera {
namespace codegen {

/// How to compile generated C.
struct CBuildOptions {
  /// The compiler; empty means $TESSERA_CC, else "cc".
  std::string compiler;
  /// Flags besides -shared -fPIC (optimization, -march=...).
  std::vector<std::string> flags = {"-O2", "-std=gnu99"};
};

/// Compiles `funcs` to a loaded module of type "c" (in a temporary directory that goes with the
/// module). Throws `InternalError` with the compiler's output when the generated source does not
/// compile, `UserError` for IR the C target cannot run or a compiler that is not installed.
runtime::Module BuildCModule(const std::vector<ir::PrimFunc>& funcs,
                             const CBuildOptions& options = {});

}  // namespace codegen
}  // namespace tessera

#endif  // TESSERA_COMPILER_CODEGEN_C_C_MODULE_H_
