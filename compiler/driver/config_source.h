/// \file
/// `ConfigSource`: where a model build gets the configuration of each template workload, the
/// best tuning record of the workload on its exact target (from a local log or the tracker's).
/// The compiler owns the interface and the tuner implements it (`tuner::LogConfigSource`,
/// `tuner/tune/apply_history.h`), so that the compiler reads records without including the
/// tuner. A build without a source uses each template's fallback configuration and says so
/// (`FallbackConfig`).
#ifndef TESSERA_COMPILER_DRIVER_CONFIG_SOURCE_H_
#define TESSERA_COMPILER_DRIVER_CONFIG_SOURCE_H_

#include <functional>
#include <optional>
#include <ostream>
#include <string>

#include "compiler/space/config_space.h"
#include "compiler/task/task.h"
#include "proto/tuning.pb.h"

namespace tessera {

/// The configuration chosen for a build.
struct ChosenConfig {
  space::ConfigEntity config;                   ///< the configuration
  std::optional<tuning::MeasureRecord> record;  ///< the record it came from (none: fallback)
  /// The record was measured at the default thread count, not at the target's `-num-threads`.
  bool other_threads = false;
  /// Why the log's records of the task were not used when the fallback was taken although the
  /// log has some (e.g. "records of template version 1, this build has 2"); empty otherwise.
  std::string unused_records;
  /// Without a record of its own: the workload whose record gave the config (the nearest tuned
  /// shape of the same template, `tuner::ChooseConfig`); empty for the template's fallback.
  std::string nearest_workload;
  /// Without a record of its own or of a near shape: what the cost model that ranked this config
  /// first learnt from and how it did on shapes held out from it (`tuner::PredictedConfig`), e.g.
  /// "the cost model of 918 records of 93 tuned shapes (predicted 1.45x the fallback's speed; on
  /// 37 shapes held out from it, its picks ran in 0.80x the fallback's time)"; empty otherwise.
  std::string predicted_from;
};

/// Which configs a build would rather have, and how much slower than the best one it accepts
/// for that (a model build prefers a convolution whose input block is the one its producer
/// writes: the layout change it saves costs more than a few percent of the kernel).
struct ConfigPreference {
  std::function<bool(const space::ConfigEntity&)> wanted;  ///< null: no preference
  double tolerance = 1.1;  ///< accept a wanted record up to this factor of the best mean cost
  double slack_s = 0;      ///< ... plus this many seconds (what not getting it costs elsewhere)
};

/// The best configuration of a task on its target.
class ConfigSource {
 public:
  virtual ~ConfigSource() = default;

  /// The configuration `task` is built with on `task.target()`: the best usable record's, or
  /// the fastest one `preference` wants within its tolerance and slack of the best; without a
  /// record, the template's fallback (`FallbackConfig`). Notices go to `warnings`.
  virtual ChosenConfig Choose(const task::Task& task, std::ostream& warnings,
                              const ConfigPreference& preference) const = 0;
};

/// True the first time this process asks for (`workload`, `target`): notices about a
/// workload's configuration are given once per workload and target, not once per layer.
bool FirstConfigNotice(const std::string& workload, const std::string& target);

/// Makes every notice first again: a process that builds many models (the Python package) gives
/// each build its own notices.
void ForgetConfigNotices();

/// `task`'s fallback configuration, announced on `warnings` with `reason` (why there is no
/// record) once per (workload, target) in this process.
ChosenConfig FallbackConfig(const task::Task& task, std::ostream& warnings,
                            const std::string& reason = "no tuning log was given");

}  // namespace tessera

#endif  // TESSERA_COMPILER_DRIVER_CONFIG_SOURCE_H_
