/// \file
/// Builds consume the tuning log through `LogConfigSource`, the tuner's `ConfigSource`: a
/// template-based operator is built with the best record of its workload on exactly its target;
/// without one it uses the template's fallback configuration and says so once per workload and
/// target, naming them. A target with `-num-threads=N` takes records measured at N threads;
/// without any, records of the same target measured at the runtime's default thread count (no
/// `-num-threads`: every log written before the option), announced.
#ifndef TESSERA_TUNER_TUNE_APPLY_HISTORY_H_
#define TESSERA_TUNER_TUNE_APPLY_HISTORY_H_

#include <ostream>
#include <string>

#include "compiler/driver/config_source.h"
#include "compiler/task/task.h"
#include "records/record_source.h"

namespace tessera {
namespace tuner {

/// `target` without its `-num-threads=N` option, as records measured at the runtime's default
/// thread count name it (unchanged when it has none).
std::string DefaultThreadsTarget(const std::string& target);

/// The best usable record of `task` in `log` (a local log or the tracker's; null: no log), or the
/// fastest one `preference` wants within its tolerance and slack of the best; without a record for
/// the exact target, the same from `DefaultThreadsTarget(target)`'s records (announced); else the
/// config of the best record of the nearest tuned shape of the same template and target that fits
/// the task's space (`ChosenConfig::nearest_workload`; shapes compared by their workload
/// arguments' log ratios), else the config a cost model of the template's other tuned shapes
/// ranks first (`PredictedConfig`, where the log holds enough of them), else the template's
/// fallback; each announced on `warnings` once per (workload, target) in this process. Only records
/// of the task's template version count (`records::TemplateVersionOf`); a fallback taken although
/// the log has records of other versions names those in its warning and in
/// `ChosenConfig::unused_records`. A config measured inside a model by the end-of-tuning check
/// (`MeasureRecord::in_model`) counts by its newest such record in place of its task records.
ChosenConfig ChooseConfig(const task::Task& task, const records::RecordSource* log,
                          std::ostream& warnings, const ConfigPreference& preference = {});

/// A model build's configurations from a tuning log: `ChooseConfig` over it.
class LogConfigSource : public ConfigSource {
 public:
  /// Reads `log` (a local log or the tracker's, not owned; null: no log, every workload takes
  /// its fallback, announced).
  explicit LogConfigSource(const records::RecordSource* log) : log_(log) {}

  /// `ChooseConfig(task, log, warnings, preference)`.
  ChosenConfig Choose(const task::Task& task, std::ostream& warnings,
                      const ConfigPreference& preference) const override;

 private:
  const records::RecordSource* log_;
};

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_TUNE_APPLY_HISTORY_H_
