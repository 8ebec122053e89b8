#include "tuner/tune/apply_history.h"

#include <algorithm>
#include <map>
#include <set>
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

// "1" or "1 and 3": the template versions of records that were not used.
std::string VersionList(const std::set<int>& versions) {
  std::string out;
  int left = static_cast<int>(versions.size());
  for (int v : versions) {
    --left;
    out += std::to_string(v) + (left > 1 ? ", " : left == 1 ? " and " : "");
  }
  return out;
}

// `records` where a config measured inside a model (`MeasureRecord::in_model`) counts by its
// newest such record alone: the end-of-tuning check found the model runs it at that cost, which
// its task records (hot weights, no epilogue) may have promised far below.
std::vector<tuning::MeasureRecord> InModelFirst(std::vector<tuning::MeasureRecord> records) {
  std::map<std::string, size_t> newest_in_model;  // serialized config -> index
  for (size_t i = 0; i < records.size(); ++i) {
    if (records[i].in_model()) newest_in_model[records[i].config().SerializeAsString()] = i;
  }
  if (newest_in_model.empty()) return records;
  std::vector<tuning::MeasureRecord> kept;
  for (size_t i = 0; i < records.size(); ++i) {
    auto it = newest_in_model.find(records[i].config().SerializeAsString());
    if (it == newest_in_model.end() || it->second == i) kept.push_back(std::move(records[i]));
  }
  return kept;
}

// The best usable record of `task` for `target` in `log` (see ChooseConfig); `reason` says why
// there is none. Records of another template version are skipped, their versions added to
// `other_versions`.
std::optional<ChosenConfig> FromRecords(const task::Task& task, const records::RecordSource& log,
                                        const std::string& target,
                                        const ConfigPreference& preference, std::string* reason,
                                        std::set<int>* other_versions) {
  records::RecordFilter filter;
  filter.workload_key = task.workload_key();
  filter.target = target;
  filter.only_successful = true;
  std::vector<tuning::MeasureRecord> records = log.List(filter);
  const int version = task.templ().version;
  records.erase(std::remove_if(records.begin(), records.end(),
                               [&](const tuning::MeasureRecord& r) {
                                 const int v = records::TemplateVersionOf(r);
                                 if (v != version) other_versions->insert(v);
                                 return v != version;
                               }),
                records.end());
  records = InModelFirst(std::move(records));
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
  std::set<int> other_versions;
  if (log) {
    if (auto chosen =
            FromRecords(task, *log, task.target(), preference, &reason, &other_versions)) {
      return *chosen;
    }
    const std::string default_threads = DefaultThreadsTarget(task.target());
    std::string ignored;
    std::optional<ChosenConfig> chosen;
    if (default_threads != task.target()) {
      chosen = FromRecords(task, *log, default_threads, preference, &ignored, &other_versions);
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
  std::string unused;
  if (!other_versions.empty()) {
    unused = "records of template version " + VersionList(other_versions) + ", this build has " +
             std::to_string(task.templ().version);
    const std::string none = "no tuning record in " + log->SourceName();
    if (reason == none) {
      reason = "no tuning record of this template version in " + log->SourceName();
    }
    reason += " (" + unused + ")";
  }
  ChosenConfig fallback = FallbackConfig(task, warnings, reason);
  fallback.unused_records = unused;
  return fallback;
}

ChosenConfig LogConfigSource::Choose(const task::Task& task, std::ostream& warnings,
                                     const ConfigPreference& preference) const {
  return ChooseConfig(task, log_, warnings, preference);
}

}  // namespace tuner
}  // namespace tessera
