/// \file
/// How a model's trial budget is split between its tasks when the tasks are tuned apart (a job
/// on the tracker, batch by batch on many workers) instead of by one `TaskScheduler` that sees
/// every measurement: each task gets a floor, the rest goes by expected weight in the model.
#ifndef TESSERA_TUNER_TUNE_TRIAL_SHARES_H_
#define TESSERA_TUNER_TUNE_TRIAL_SHARES_H_

#include <cstdint>
#include <vector>

#include "tuner/tune/tune_model.h"

namespace tessera {
namespace tuner {

/// Splits `trials` between `tasks`: each gets at least ⌊trials / (2 × tasks)⌋ (and at least
/// one), the rest in proportion to weight × FLOPs (largest remainders first). The shares add up
/// to `trials`. Throws `UserError` when `trials` is smaller than the number of tasks.
std::vector<int64_t> TrialShares(const std::vector<ModelTask>& tasks, int64_t trials);

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_TUNE_TRIAL_SHARES_H_
