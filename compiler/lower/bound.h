/// \file
/// Bound inference: from a schedule, the range of every loop of every stage, the region of
/// each tensor that must be computed (all of it at the root; what the consumer's inner loops
/// read under compute_at), how each original axis is rebuilt from the loops, and the guards
/// that non-divisible splits and over-wide regions need. Inlined stages are substituted into
/// their consumers first.
#ifndef TESSERA_COMPILER_LOWER_BOUND_H_
#define TESSERA_COMPILER_LOWER_BOUND_H_

#include <unordered_map>
#include <vector>

#include "compiler/arith/analyzer.h"
#include "compiler/te/schedule.h"

namespace tessera {
namespace lower {

/// A condition under which one iteration of a stage's loop nest does real work.
struct Guard {
  ir::Expr condition;  ///< in terms of the stage's loop variables
  bool on_reduce;      ///< true when it constrains reduction axes (not checked by the init)
};

/// What lowering needs to know about one (non-inlined) stage.
struct StageInfo {
  te::Stage stage;                ///< the stage
  te::Tensor tensor;              ///< the tensor it writes (its current operation's output)
  ir::Expr body;                  ///< its compute body with inlined stages substituted
  std::vector<size_t> consumers;  ///< indices of stages whose bodies read `tensor`
  /// Range of every iteration variable (root axes: the computed region; split/fuse results:
  /// from zero).
  std::unordered_map<const ir::Object*, ir::Range> ranges;
  /// Value of every root axis in terms of the loop variables.
  std::unordered_map<const ir::Object*, ir::Expr> root_values;
  std::vector<Guard> guards;      ///< conditions for iterations of the loop nest
  std::vector<ir::Range> region;  ///< region of `tensor` computed (one range per dimension)
};

/// The analysed schedule.
struct ScheduleAnalysis {
  std::vector<StageInfo> stages;  ///< non-inlined stages, producers first
  /// Index in `stages` of every operation a stage ever had.
  std::unordered_map<const ir::Object*, size_t> stage_of_op;
  arith::Analyzer analyzer;  ///< knows the bounds of every loop variable
};

/// Runs bound inference on `schedule`. Throws `UserError` for schedules that cannot be lowered
/// (compute_at into an inlined stage or into a stage that is not the only reader).
ScheduleAnalysis InferBound(const te::Schedule& schedule);

}  // namespace lower
}  // namespace tessera

#endif  // TESSERA_COMPILER_LOWER_BOUND_H_
