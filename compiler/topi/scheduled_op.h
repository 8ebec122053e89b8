/// \file
/// What an operator template produces: a schedule ready to lower, with its arguments.
#ifndef TESSERA_COMPILER_TOPI_SCHEDULED_OP_H_
#define TESSERA_COMPILER_TOPI_SCHEDULED_OP_H_

#include <vector>

#include "compiler/te/schedule.h"

namespace tessera {
namespace topi {

/// A scheduled operator: lower `schedule` with `args` (inputs first, then the output).
struct ScheduledOp {
  te::Schedule schedule;
  std::vector<te::Tensor> args;
  double flops = 0;  ///< floating-point operations of one call
};

}  // namespace topi
}  // namespace tessera

#endif  // TESSERA_COMPILER_TOPI_SCHEDULED_OP_H_
