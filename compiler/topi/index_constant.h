/// \file
/// Private to `compiler/topi`: the int32 constant every template builds its shapes, splits and
/// index arithmetic from.
#ifndef TESSERA_COMPILER_TOPI_INDEX_CONSTANT_H_
#define TESSERA_COMPILER_TOPI_INDEX_CONSTANT_H_

#include <cstdint>

#include "compiler/ir/expr.h"

namespace tessera {
namespace topi {

/// An int32 constant (shapes and indices are int32 throughout the compiler).
inline ir::Expr I(int64_t v) { return ir::IntImm(ir::DataType::Int(32), v); }

}  // namespace topi
}  // namespace tessera

#endif  // TESSERA_COMPILER_TOPI_INDEX_CONSTANT_H_
