/// \file
/// Symbolic integer intervals for bound inference: the range an index expression covers when
/// some variables sweep their ranges while the others stay fixed (symbolic).
#ifndef TESSERA_COMPILER_ARITH_INT_SET_H_
#define TESSERA_COMPILER_ARITH_INT_SET_H_

#include <unordered_map>

#include "compiler/arith/analyzer.h"
#include "compiler/ir/expr.h"

namespace tessera {
namespace arith {

/// The inclusive interval [min, max]; a null end means unbounded on that side.
struct IntervalSet {
  ir::Expr min;  ///< lower end (null: -inf)
  ir::Expr max;  ///< upper end (null: +inf)
  /// The single point `e`.
  static IntervalSet Point(const ir::Expr& e) { return {e, e}; }
  /// [range.min, range.min + range.extent - 1].
  static IntervalSet FromRange(const ir::Range& range);
  /// True when both ends are known.
  bool bounded() const { return min.defined() && max.defined(); }
};

/// Intervals of the variables that sweep, keyed by variable node.
using VarIntervalMap = std::unordered_map<const ir::Object*, IntervalSet>;

/// The interval that `e` covers while each variable in `vars` ranges over its interval. Ends are
/// simplified with `analyzer`. Variables not in `vars` stay as they are.
IntervalSet EvalIntervalSet(const ir::Expr& e, const VarIntervalMap& vars,
                            const Analyzer& analyzer);

/// The smallest interval containing both.
IntervalSet Union(const IntervalSet& a, const IntervalSet& b, const Analyzer& analyzer);

}  // namespace arith
}  // namespace tessera

#endif  // TESSERA_COMPILER_ARITH_INT_SET_H_
