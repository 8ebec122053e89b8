#include "tuner/tune/apply_history.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "compiler/space/config_proto.h"
#include "compiler/support/error.h"
#include "records/tuning_log.h"
#include "tuner/tune/predicted_config.h"
#include "tuner/tune/workload_args.h"

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

// `records` without the task records timed hot (`MeasureRecord::cold_weights` false) when some
// were timed with cold weights: those were measured as the model reads its weights, and a hot
// cost would win against them by the caches alone.
std::vector<tuning::MeasureRecord> PreferColdWeights(std::vector<tuning::MeasureRecord> records) {
  const bool any_cold =
      std::any_of(records.begin(), records.end(), [](const auto& r) { return r.cold_weights(); });
  if (!any_cold) return records;
  records.erase(std::remove_if(records.begin(), records.end(),
                               [](const auto& r) { return !r.in_model() && !r.cold_weights(); }),
                records.end());
  return records;
}

// `records` where a config measured inside a model (`MeasureRecord::in_model`) counts by its
// newest such record alone: the end-of-tuning check found the model runs it at that cost, which
// its task records (hot weights, no epilogue) may have promised far below. The other task
// records count at their cost times how much slower the model ran the configs measured both
// ways, so that the next-best task record does not win against the kept choice by the same
// optimism the check just corrected. Fastest first (by mean cost, ties in log order).
std::vector<tuning::MeasureRecord> RankByModelCost(std::vector<tuning::MeasureRecord> records) {
  records = PreferColdWeights(std::move(records));
  auto fastest_first = [](std::vector<tuning::MeasureRecord> ranked) {
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
      return records::MeanCost(a) < records::MeanCost(b);
    });
    return ranked;
  };
  std::map<std::string, size_t> newest_in_model;  // serialized config -> index
  std::map<std::string, double> best_task_cost;   // serialized config -> its best task record
  for (size_t i = 0; i < records.size(); ++i) {
    const std::string config = records[i].config().SerializeAsString();
    if (records[i].in_model()) {
      newest_in_model[config] = i;
    } else {
      auto [it, fresh] = best_task_cost.try_emplace(config, records::MeanCost(records[i]));
      if (!fresh) it->second = std::min(it->second, records::MeanCost(records[i]));
    }
  }
  if (newest_in_model.empty()) return fastest_first(std::move(records));
  double ratios = 0;
  int measured_both_ways = 0;
  for (const auto& [config, index] : newest_in_model) {
    auto task = best_task_cost.find(config);
    if (task == best_task_cost.end() || !(task->second > 0)) continue;
    ratios += records::MeanCost(records[index]) / task->second;
    ++measured_both_ways;
  }
  const double model_slowdown = measured_both_ways ? std::max(1.0, ratios / measured_both_ways) : 1;
  std::vector<tuning::MeasureRecord> kept;
  for (size_t i = 0; i < records.size(); ++i) {
    auto it = newest_in_model.find(records[i].config().SerializeAsString());
    if (it != newest_in_model.end() && it->second != i) continue;
    if (!records[i].in_model()) {
      for (int c = 0; c < records[i].costs_size(); ++c) {
        records[i].set_costs(c, records[i].costs(c) * model_slowdown);
      }
    }
    kept.push_back(std::move(records[i]));
  }
  return fastest_first(std::move(kept));
}

// Shapes further apart than this (the sum of their arguments' log ratios: channels and image
// sides each about 2.5 times apart) say too little about each other's best config.
constexpr double kNearestShapeDistance = 3.0;
// Of the nearest shape's records, those within this factor of its best are tried in turn.
constexpr double kNearestRecordTolerance = 1.25;

// The config of the best record of the nearest tuned shape of `task`'s template on its target
// that fits `task`'s space (tiles divide its extents), for a task without records of its own.
std::optional<ChosenConfig> NearestConfig(const task::Task& task,
                                          const records::RecordSource& log) {
  records::RecordFilter filter;
  filter.template_name = records::TemplateOfWorkload(task.workload_key());
  filter.target = task.target();
  filter.only_successful = true;
  std::map<std::string, std::vector<tuning::MeasureRecord>> by_workload;
  for (tuning::MeasureRecord& r : log.List(filter)) {
    if (r.workload_key() == task.workload_key()) continue;
    if (records::TemplateVersionOf(r) != task.templ().version) continue;
    by_workload[r.workload_key()].push_back(std::move(r));
  }
  const WorkloadArgs own = ArgsOf(task.workload_key());
  std::vector<std::pair<double, std::string>> nearest;
  for (const auto& entry : by_workload) {
    const double distance = ShapeDistance(own, ArgsOf(entry.first));
    if (distance <= kNearestShapeDistance) nearest.emplace_back(distance, entry.first);
  }
  std::sort(nearest.begin(), nearest.end());
  for (const auto& [distance, key] : nearest) {
    const std::vector<tuning::MeasureRecord> records = RankByModelCost(std::move(by_workload[key]));
    for (const tuning::MeasureRecord& r : records) {
      if (records::MeanCost(r) > kNearestRecordTolerance * records::MeanCost(records[0])) break;
      try {
        ChosenConfig chosen{space::ConfigFromProto(task.config_space(), r.config()), std::nullopt};
        chosen.nearest_workload = key;
        return chosen;
      } catch (const UserError&) {
        // Its tiles do not divide this shape's extents: the next record.
      }
    }
  }
  return std::nullopt;
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
  records = RankByModelCost(std::move(records));
  if (records.empty()) *reason = "no tuning record in " + log.SourceName();
  std::optional<ChosenConfig> best;
  // The slack stands for what a layout the config does not want costs around it; records
  // measured in the model have paid that already, in the model's layouts, and the others count
  // at their slowdown there.
  const bool measured_in_model =
      std::any_of(records.begin(), records.end(), [](const auto& r) { return r.in_model(); });
  const double slack_s = measured_in_model ? 0 : preference.slack_s;
  for (const tuning::MeasureRecord& record : records) {
    if (best && records::MeanCost(record) >
                    records::MeanCost(*best->record) * preference.tolerance + slack_s) {
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
  if (log) {
    if (std::optional<ChosenConfig> nearest = NearestConfig(task, *log)) {
      nearest->unused_records = unused;
      if (FirstConfigNotice(task.workload_key(), task.target())) {
        warnings << "warning: " << reason << " for " << task.workload_key() << " on '"
                 << task.target() << "': using the best config of the nearest tuned shape, "
                 << nearest->nearest_workload << " (run `tessera tune` for it)\n";
      }
      return *nearest;
    }
    if (std::optional<ChosenConfig> predicted = PredictedConfig(task, *log)) {
      predicted->unused_records = unused;
      if (FirstConfigNotice(task.workload_key(), task.target())) {
        warnings << "warning: " << reason << " for " << task.workload_key() << " on '"
                 << task.target() << "' and no tuned shape near it: using the config "
                 << predicted->predicted_from << " ranks first (run `tessera tune` for it)\n";
      }
      return *predicted;
    }
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
