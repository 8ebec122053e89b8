/// \file
/// Builds consume the tuning log: a template-based operator is built with the best record of its
/// workload on exactly its target; without one it uses the template's fallback configuration and
/// says so once per workload and target, naming them.
#ifndef TESSERA_TUNER_TUNE_APPLY_HISTORY_H_
#define TESSERA_TUNER_TUNE_APPLY_HISTORY_H_

#include <functional>
#include <optional>
#include <ostream>

#include "compiler/space/config_space.h"
#include "proto/tuning.pb.h"
#include "tuner/log/record_source.h"
#include "tuner/task/task.h"

namespace tessera {
namespace tuner {

/// The configuration chosen for a build.
struct ChosenConfig {
  space::ConfigEntity config;
  std::optional<tuning::MeasureRecord> record;  ///< the record it came from (none: fallback)
};

/// Which configs a build would rather have, and how much slower than the best one it accepts
/// for that (a model build prefers a convolution whose input block is the one its producer
/// writes: the layout change it saves costs more than a few percent of the kernel).
struct ConfigPreference {
  std::function<bool(const space::ConfigEntity&)> wanted;  ///< null: no preference
  double tolerance = 1.1;  ///< accept a wanted record up to this factor of the best mean cost
};

/// The best usable record of `task` in `log` (a local log or the tracker's; null: no log), or the
/// fastest one `preference` wants within its tolerance of the best; else the fallback, announced on
/// `warnings` once per (workload, target) in this process.
ChosenConfig ChooseConfig(const Task& task, const RecordSource* log, std::ostream& warnings,
                          const ConfigPreference& preference = {});

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_TUNE_APPLY_HISTORY_H_
