/// \file
/// Builds consume the tuning log: a template-based operator is built with the best record of its
/// workload on exactly its target; without one it uses the template's fallback configuration and
/// says so once per workload and target, naming them. A target with `-num-threads=N` takes records
/// measured at N threads; without any, records of the same target measured at the runtime's
/// default thread count (no `-num-threads`: every log written before the option), announced.
#ifndef TESSERA_TUNER_TUNE_APPLY_HISTORY_H_
#define TESSERA_TUNER_TUNE_APPLY_HISTORY_H_

#include <functional>
#include <optional>
#include <ostream>

#include "compiler/space/config_space.h"
#include "compiler/task/task.h"
#include "proto/tuning.pb.h"
#include "records/record_source.h"

namespace tessera {
namespace tuner {

/// The configuration chosen for a build.
struct ChosenConfig {
  space::ConfigEntity config;
  std::optional<tuning::MeasureRecord> record;  ///< the record it came from (none: fallback)
  /// The record was measured at the default thread count, not at the target's `-num-threads`.
  bool other_threads = false;
};

/// `target` without its `-num-threads=N` option, as records measured at the runtime's default
/// thread count name it (unchanged when it has none).
std::string DefaultThreadsTarget(const std::string& target);

/// Which configs a build would rather have, and how much slower than the best one it accepts
/// for that (a model build prefers a convolution whose input block is the one its producer
/// writes: the layout change it saves costs more than a few percent of the kernel).
struct ConfigPreference {
  std::function<bool(const space::ConfigEntity&)> wanted;  ///< null: no preference
  double tolerance = 1.1;  ///< accept a wanted record up to this factor of the best mean cost
  double slack_s = 0;      ///< ... plus this many seconds (what not getting it costs elsewhere)
};

/// The best usable record of `task` in `log` (a local log or the tracker's; null: no log), or the
/// fastest one `preference` wants within its tolerance and slack of the best; without a record for
/// the exact target, the same from `DefaultThreadsTarget(target)`'s records (announced); else the
/// fallback, announced on `warnings` once per (workload, target) in this process.
ChosenConfig ChooseConfig(const task::Task& task, const records::RecordSource* log,
                          std::ostream& warnings, const ConfigPreference& preference = {});

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_TUNE_APPLY_HISTORY_H_
