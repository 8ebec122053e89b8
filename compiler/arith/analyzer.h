/// \file
/// `Analyzer`: integer reasoning with known variable ranges. It simplifies expressions
/// (constant folding, collecting linear terms, floor division/modulo by constants, min/max and
/// comparisons decided by bounds) and proves conditions, which is what lowering needs to drop
/// tail guards that can never fail.
#ifndef TESSERA_COMPILER_ARITH_ANALYZER_H_
#define TESSERA_COMPILER_ARITH_ANALYZER_H_

#include "compiler/arith/const_int_bound.h"
#include "compiler/ir/expr.h"

namespace tessera {
namespace arith {

/// Simplifies and proves facts about integer expressions under known variable bounds.
class Analyzer {
 public:
  /// Records that `var` lies in [range.min, range.min + range.extent) (bounds taken from the
  /// constant bounds of min and extent under what is already known).
  void Bind(const ir::Var& var, const ir::Range& range);
  /// Records that `var` lies in the inclusive constant interval `bound`.
  void Bind(const ir::Var& var, ConstIntBound bound);
  /// Forgets what is known about `var`.
  void Unbind(const ir::Var& var);
  /// Constant bounds of `e` under the known variable bounds.
  ConstIntBound Bound(const ir::Expr& e) const;
  /// An equivalent, simpler expression.
  ir::Expr Simplify(const ir::Expr& e) const;
  /// True when `cond` holds for every value of the bound variables (false means "not proven").
  bool CanProve(const ir::Expr& cond) const;
  /// The known bounds (for passes that save and restore them).
  const VarBoundMap& bounds() const { return bounds_; }
  /// Replaces the known bounds.
  void set_bounds(VarBoundMap bounds) { bounds_ = std::move(bounds); }

 private:
  VarBoundMap bounds_;
};

}  // namespace arith
}  // namespace tessera

#endif  // TESSERA_COMPILER_ARITH_ANALYZER_H_
