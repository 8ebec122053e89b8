/// \file
/// The cost model as a build's fallback: a workload with no record of its own and no tuned shape
/// near it takes the config that a model trained on the log's records of its template's other
/// shapes ranks first, where the log holds enough of them to learn from.
#ifndef TESSERA_TUNER_TUNE_PREDICTED_CONFIG_H_
#define TESSERA_TUNER_TUNE_PREDICTED_CONFIG_H_

#include <optional>

#include "compiler/driver/config_source.h"
#include "compiler/task/task.h"
#include "records/record_source.h"

namespace tessera {
namespace tuner {

/// The config that a cost model trained on `log`'s successful records of the same template,
/// template version and target (log2 of each record's speed relative to its shape's best)
/// predicts fastest for `task`, among its space's fallback and the configs that ran within 1.25x
/// of the best on another tuned shape and fit `task`'s space, where it predicts at least 1.1x the
/// fallback's speed; `predicted_from` says what the model learnt from and how it did held out.
/// Nullopt (the fallback) unless the log holds at least 64 such records of 3 shapes and the model
/// passed a check on them: trained without each group of shapes in turn, its picks for those
/// shapes (among the configs their own tuning measured) ran in at most 0.85 of the fallback's
/// time, over at least 3 shapes. A model is trained and checked once per log, template, version,
/// target and record count in this process.
std::optional<ChosenConfig> PredictedConfig(const task::Task& task,
                                            const records::RecordSource& log);

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_TUNE_PREDICTED_CONFIG_H_
