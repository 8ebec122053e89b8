/// \file
/// Builds consume the tuning log: a template-based operator is built with the best record of its
/// workload on exactly its target; without one it uses the template's fallback configuration and
/// says so once per workload and target, naming them.
#ifndef TESSERA_TUNER_TUNE_APPLY_HISTORY_H_
#define TESSERA_TUNER_TUNE_APPLY_HISTORY_H_

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

/// The best usable record of `task` in `log` (a local log or the tracker's; null: no log), else the
/// fallback; the fallback is announced on `warnings` once per (workload, target) in this process.
ChosenConfig ChooseConfig(const Task& task, const RecordSource* log, std::ostream& warnings);

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_TUNE_APPLY_HISTORY_H_
