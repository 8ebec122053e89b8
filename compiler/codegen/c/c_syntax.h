/// \file
/// What the C and CUDA C code generators print alike: CUDA C is a C dialect, so a binary
/// operation reads the same in both (operators, libm for floating-point mod and floor, Tessera's
/// helper functions such as `tessera_floordiv_i32` that each generator's prelude defines).
#ifndef TESSERA_COMPILER_CODEGEN_C_C_SYNTAX_H_
#define TESSERA_COMPILER_CODEGEN_C_C_SYNTAX_H_

#include <cstdint>
#include <string>

#include "compiler/ir/expr.h"

namespace tessera {
namespace codegen {

/// The suffix of Tessera's helper functions for the element type of `t` ("i32", "u8", "f64", "b").
std::string HelperSuffix(ir::DataType t);

/// `x` and `y` (printed operands of element type `t`) combined by the binary node kind `kind`
/// (`ir::kAdd` … `ir::kOr`), in C syntax. `backend` names the generator in the internal error
/// thrown for any other kind.
std::string BinaryExprC(uint32_t kind, ir::DataType t, const std::string& x, const std::string& y,
                        const char* backend);

/// The prelude's definitions of Tessera's helper functions (`tessera_min_i32`,
/// `tessera_floordiv_i32`, ...), each declared `qualifier` ("static inline" in C), through macros
/// named TESSERA_`macro_infix`MINMAX, ...FLOORDIV and ...UFLOORDIV.
std::string HelperDefinitions(const std::string& macro_infix, const std::string& qualifier);

}  // namespace codegen
}  // namespace tessera

#endif  // TESSERA_COMPILER_CODEGEN_C_C_SYNTAX_H_
