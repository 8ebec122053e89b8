/// \file
/// Constant integer bounds: the smallest interval [min, max] of int64 constants that contains
/// every value an integer expression can take, given constant bounds of its variables.
#ifndef TESSERA_COMPILER_ARITH_CONST_INT_BOUND_H_
#define TESSERA_COMPILER_ARITH_CONST_INT_BOUND_H_

#include <cstdint>
#include <limits>
#include <unordered_map>

#include "compiler/ir/expr.h"

namespace tessera {
namespace arith {

/// An inclusive interval of integers; `kNegInf`/`kPosInf` mean unbounded on that side.
struct ConstIntBound {
  static constexpr int64_t kNegInf = std::numeric_limits<int64_t>::min();  ///< no lower bound
  static constexpr int64_t kPosInf = std::numeric_limits<int64_t>::max();  ///< no upper bound
  int64_t min = kNegInf;  ///< smallest possible value
  int64_t max = kPosInf;  ///< largest possible value
  /// True when both ends are finite and equal.
  bool is_const() const { return min == max && min != kNegInf && max != kPosInf; }
};

/// Constant bounds of variables, keyed by variable node.
using VarBoundMap = std::unordered_map<const ir::Object*, ConstIntBound>;

/// Bounds of the integer (or bool, as 0/1) expression `e` where each variable in `vars` lies in
/// its bound; other variables are unbounded. Vector expressions give the bound over all lanes.
ConstIntBound EvalConstIntBound(const ir::Expr& e, const VarBoundMap& vars);

}  // namespace arith
}  // namespace tessera

#endif  // TESSERA_COMPILER_ARITH_CONST_INT_BOUND_H_
