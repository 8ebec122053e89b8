#include "tuner/cost_model/transfer.h"

#include <algorithm>
#include <limits>
#include <map>

#include "compiler/space/config_proto.h"
#include "compiler/support/error.h"
#include "records/tuning_log.h"
#include "tuner/cost_model/knob_features.h"

namespace tessera {
namespace tuner {

double BestRepeatCost(const tuning::MeasureRecord& record) {
  double best = std::numeric_limits<double>::infinity();
  if (record.error_kind() != tuning::OK) return best;
  for (double c : record.costs()) {
    if (c > 0) best = std::min(best, c);
  }
  return best;
}

TrainingSet HistoryTrainingSet(const std::vector<tuning::MeasureRecord>& records,
                               const std::string& skip_workload, int64_t width,
                               int template_version) {
  // Group rows by workload: a ranking objective compares candidates of one workload only,
  // since costs of different shapes are not comparable; nor are costs timed with cold weights
  // and warm ones, so each condition of a workload is a group of its own.
  std::map<std::string, std::vector<std::pair<std::vector<float>, double>>> by_workload;
  for (const tuning::MeasureRecord& record : records) {
    if (record.workload_key() == skip_workload || !record.has_config()) continue;
    if (record.in_model()) continue;  // its cost includes the model's epilogues and caches
    if (template_version != 0 && records::TemplateVersionOf(record) != template_version) continue;
    std::vector<space::KnobSetting> settings;
    try {
      settings = space::ConfigSettings(record.config());
    } catch (const UserError&) {
      continue;  // written by an incompatible template version: not usable as history
    }
    std::vector<float> row = CandidateFeatures(settings, record.workload_key());
    if (static_cast<int64_t>(row.size()) != width) continue;
    const std::string group = record.workload_key() + (record.cold_weights() ? " cold" : "");
    by_workload[group].emplace_back(std::move(row), BestRepeatCost(record));
  }
  TrainingSet set;
  for (auto& entry : by_workload) {
    for (auto& row : entry.second) {
      set.features.AddRow(row.first);
      set.costs.push_back(row.second);
    }
    set.group_sizes.push_back(static_cast<unsigned>(entry.second.size()));
    set.workloads.push_back(entry.first);
  }
  return set;
}

void FitWithHistory(XGBoostCostModel& model, const TrainingSet& history, const FeatureMatrix& own,
                    const std::vector<double>& own_costs, double own_share) {
  if (history.features.rows() == 0) {
    model.Fit(own, own_costs);
    return;
  }
  FeatureMatrix rows = history.features;
  rows.Append(own);
  std::vector<double> costs = history.costs;
  costs.insert(costs.end(), own_costs.begin(), own_costs.end());
  std::vector<unsigned> groups = history.group_sizes;
  std::vector<float> weights(groups.size(), 1.f);
  if (own.rows() > 0) {
    groups.push_back(static_cast<unsigned>(own.rows()));
    weights.push_back(static_cast<float>(
        std::max(1.0, own_share * static_cast<double>(history.features.rows()) / own.rows())));
  }
  model.Fit(rows, costs, groups, weights);
}

TrainingSet HistoryFromLog(const records::TuningLog& log, const std::string& workload_key,
                           const std::string& target, int64_t width, int template_version) {
  records::RecordFilter filter;
  filter.template_name = records::TemplateOfWorkload(workload_key);
  filter.target = target;
  return HistoryTrainingSet(log.List(filter), workload_key, width, template_version);
}

std::shared_ptr<XGBoostCostModel> PretrainFromLog(const records::TuningLog& log,
                                                  const std::string& workload_key,
                                                  const std::string& target, int64_t width,
                                                  const XGBoostOptions& options,
                                                  int64_t min_records) {
  TrainingSet set = HistoryFromLog(log, workload_key, target, width);
  if (set.features.rows() == 0 || set.features.rows() < min_records) return nullptr;
  auto model = std::make_shared<XGBoostCostModel>(options);
  model->Fit(set.features, set.costs, set.group_sizes);
  return model;
}

}  // namespace tuner
}  // namespace tessera
