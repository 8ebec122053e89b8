/// \file
/// Transfer learning: a base cost model trained on the tuning log's records of other workloads of
/// the same template and target, used as the prior of a new tuning run.
#ifndef TESSERA_TUNER_COST_MODEL_TRANSFER_H_
#define TESSERA_TUNER_COST_MODEL_TRANSFER_H_

#include <memory>
#include <string>
#include <vector>

#include "proto/tuning.pb.h"
#include "records/tuning_log.h"
#include "tuner/cost_model/feature_matrix.h"
#include "tuner/cost_model/xgboost_cost_model.h"

namespace tessera {
namespace tuner {

/// Rows, costs and per-workload groups built from history records.
struct TrainingSet {
  FeatureMatrix features;
  std::vector<double> costs;           ///< `BestRepeatCost` of each record
  std::vector<unsigned> group_sizes;   ///< one group per workload, rows contiguous
  std::vector<std::string> workloads;  ///< the workload of each group (" cold": its cold records)
};

/// The cost a model learns from for `record`: the fastest of its repeats (seconds), +infinity for
/// a failed record. Slower repeats measure interference from other work more than the candidate.
double BestRepeatCost(const tuning::MeasureRecord& record);

/// Turns `records` into `CandidateFeatures` rows grouped by workload (its records timed with cold
/// weights a group of their own, named with " cold" after the key), skipping records of
/// `skip_workload`, records whose config JSON does not parse, rows whose width is not `width`,
/// and with a `template_version` (0: any) records of another version of the template (their
/// knobs meant other code, even where the names and widths still match).
TrainingSet HistoryTrainingSet(const std::vector<tuning::MeasureRecord>& records,
                               const std::string& skip_workload, int64_t width,
                               int template_version = 0);

/// Fits `model` on the task's own measured rows (`own`, `own_costs`) together with `history`
/// (rows of other workloads, one ranking group each): one model learns what the shapes share
/// and what is particular to this one, and the history never fades out of what generalises.
/// The own rows are one more group, weighted so that together they count `own_share` times as
/// much as the whole history, and each at least as much as a row of it (0: a group like any
/// other). `history` may be empty.
void FitWithHistory(XGBoostCostModel& model, const TrainingSet& history, const FeatureMatrix& own,
                    const std::vector<double>& own_costs, double own_share = 1.0);

/// The log's records of the template of `workload_key` on exactly `target` (other workloads
/// only; with a `template_version`, of that version only), as a training set of rows `width`
/// wide.
TrainingSet HistoryFromLog(const records::TuningLog& log, const std::string& workload_key,
                           const std::string& target, int64_t width, int template_version = 0);

/// A base model trained on the log's records of the template of `workload_key` on exactly
/// `target` (other workloads only), or null when fewer than `min_records` are usable.
std::shared_ptr<XGBoostCostModel> PretrainFromLog(const records::TuningLog& log,
                                                  const std::string& workload_key,
                                                  const std::string& target, int64_t width,
                                                  const XGBoostOptions& options,
                                                  int64_t min_records);

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_COST_MODEL_TRANSFER_H_
