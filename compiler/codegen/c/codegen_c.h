/// \file
/// The C code generator: portable C99 (with GCC/Clang builtins) for packed-API functions from
/// `lower::Lower`. The source is self-contained (it declares the runtime ABI it uses), defines
/// `__tessera_abi_version`, outlines parallel loops into `TesseraParallelLambda`s run through
/// `TesseraBackendParallelLaunch`, and writes vector operations as per-lane loops.
#ifndef TESSERA_COMPILER_CODEGEN_C_CODEGEN_C_H_
#define TESSERA_COMPILER_CODEGEN_C_CODEGEN_C_H_

#include <string>
#include <vector>

#include "compiler/ir/function.h"

namespace tessera {
namespace codegen {

/// C source defining every function of `funcs` (each exported under its name). Throws
/// `UserError` for IR the C target cannot run (loops bound to GPU threads).
std::string GenerateC(const std::vector<ir::PrimFunc>& funcs);

}  // namespace codegen
}  // namespace tessera

#endif  // TESSERA_COMPILER_CODEGEN_C_CODEGEN_C_H_
