#include "tuner/tune/apply_history.h"

#include <algorithm>
#include <sstream>
#include <utility>

#include "compiler/space/config_proto.h"
#include "compiler/support/error.h"
#include "records/tuning_log.h"

namespace tessera {
namespace tuner {

std::string DefaultThreadsTarget(const std::string& target) {
  std::istringstream words(target);
  std::string out;
  for (std::string word; words >> word;) {
    if (word.rfind("-num-threads=", 0) == 0) continue;
    out += (out.empty() ? "" : " ") + word;
  }
  return out.empty() ? target : out;
}

namespace {

// The best usable record of `task` for `target` in `log` (see ChooseConfig); `reason` says why
// there is none.
std::optional<ChosenConfig> FromRecords(const task::Task& task, const records::RecordSource& log,
                                        const std::string& target,
                                        const ConfigPreference& preference, std::string* reason) {
  records::RecordFilter filter;
  filter.workload_key = task.workload_key();
  filter.target = target;
  filter.only_successful = true;
  std::vector<tuning::MeasureRecord> records = log.List(filter);
  std::stable_sort(records.begin(), records.end(), [](const auto& a, const auto& b) {
    return records::MeanCost(a) < records::MeanCost(b);
  });
  if (records.empty()) *reason = "no tuning record in " + log.SourceName();
  std::optional<ChosenConfig> best;
  for (const tuning::MeasureRecord& record : records) {
    if (best && records::MeanCost(record) >
                    records::MeanCost(*best->record) * preference.tolerance + preference.slack_s) {
      break;
    }
    try {
      ChosenConfig chosen{space::ConfigFromProto(task.config_space(), record.config()), record};
      if (!preference.wanted || preference.wanted(chosen.config)) return chosen;
      if (!best) best = std::move(chosen);
    } catch (const UserError&) {
      *reason = "no record in " + log.SourceName() + " fits the current template";
    }
  }
  return best;
}

}  // namespace

ChosenConfig ChooseConfig(const task::Task& task, const records::RecordSource* log,
                          std::ostream& warnings, const ConfigPreference& preference) {
  std::string reason = "no tuning log was given";
  if (log) {
    if (auto chosen = FromRecords(task, *log, task.target(), preference, &reason)) return *chosen;
    const std::string default_threads = DefaultThreadsTarget(task.target());
    std::string ignored;
    std::optional<ChosenConfig> chosen;
    if (default_threads != task.target()) {
      chosen = FromRecords(task, *log, default_threads, preference, &ignored);
    }
    if (chosen) {
      chosen->other_threads = true;
      if (FirstConfigNotice(task.workload_key(), task.target() + "\n" + default_threads)) {
        warnings << "warning: no tuning record in " << log->SourceName() << " for "
                 << task.workload_key() << " on '" << task.target() << "': using one of '"
                 << default_threads << "' (measured at the default thread count; run `tessera "
                 << "tune` with --target '" << task.target() << "' for records of its own)\n";
      }
      return *chosen;
    }
  }
  return FallbackConfig(task, warnings, reason);
}

ChosenConfig LogConfigSource::Choose(const task::Task& task, std::ostream& warnings,
                                     const ConfigPreference& preference) const {
  return ChooseConfig(task, log_, warnings, preference);
}

}  // namespace tuner
}  // namespace tessera
