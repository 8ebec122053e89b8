/// \file
/// Turns an analysed schedule into a loop nest over tensors: one nest per root stage, attached
/// stages inside the loop they are attached to, `ProducerRealize` around every intermediate
/// tensor, `ProducerStore` for each element, reductions as init + update, guards from bound
/// inference, loop annotations (kinds, pragmas, thread bindings).
#ifndef TESSERA_COMPILER_LOWER_SCHEDULE_OPS_H_
#define TESSERA_COMPILER_LOWER_SCHEDULE_OPS_H_

#include "compiler/ir/stmt.h"
#include "compiler/lower/bound.h"

namespace tessera {
namespace lower {

/// The loop nest of `analysis` (before flattening). Stages of tensors in `args` get no
/// `ProducerRealize`: their storage is the argument.
ir::Stmt ScheduleOps(const ScheduleAnalysis& analysis, const std::vector<te::Tensor>& args);

}  // namespace lower
}  // namespace tessera

#endif  // TESSERA_COMPILER_LOWER_SCHEDULE_OPS_H_
