#include "tuner/cost_model/transfer.h"

#include <algorithm>
#include <limits>
#include <map>

#include "compiler/space/config_json.h"
#include "compiler/support/error.h"
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
                               const std::string& skip_workload, int64_t width) {
  // Group rows by workload: a ranking objective compares candidates of one workload only,
  // since costs of different shapes are not comparable.
  std::map<std::string, std::vector<std::pair<std::vector<float>, double>>> by_workload;
  for (const tuning::MeasureRecord& record : records) {
    if (record.workload_key() == skip_workload) continue;
    std::vector<space::KnobSetting> settings;
    try {
      settings = space::ParseConfigSettings(record.config_json());
    } catch (const UserError&) {
      continue;  // written by an incompatible template version: not usable as history
    }
    std::vector<float> row = CandidateFeatures(settings, record.workload_key());
    if (static_cast<int64_t>(row.size()) != width) continue;
    by_workload[record.workload_key()].emplace_back(std::move(row), BestRepeatCost(record));
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

std::shared_ptr<XGBoostCostModel> PretrainFromLog(const TuningLog& log,
                                                  const std::string& workload_key,
                                                  const std::string& target, int64_t width,
                                                  const XGBoostOptions& options,
                                                  int64_t min_records) {
  RecordFilter filter;
  filter.template_name = TemplateOfWorkload(workload_key);
  filter.target = target;
  TrainingSet set = HistoryTrainingSet(log.List(filter), workload_key, width);
  if (set.features.rows() == 0 || set.features.rows() < min_records) return nullptr;
  auto model = std::make_shared<XGBoostCostModel>(options);
  model->Fit(set.features, set.costs, set.group_sizes);
  return model;
}

}  // namespace tuner
}  // namespace tessera
