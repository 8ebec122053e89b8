#include "tuner/tune/predicted_config.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "compiler/space/config_proto.h"
#include "compiler/support/error.h"
#include "records/tuning_log.h"
#include "tuner/cost_model/knob_features.h"
#include "tuner/cost_model/transfer.h"
#include "tuner/cost_model/xgboost_cost_model.h"

namespace tessera {
namespace tuner {
namespace {

// Below these a model has seen too few configs, or too few shapes to tell what carries over from
// one shape to another, to beat the template's own fallback rule.
constexpr int64_t kMinRecords = 64;
constexpr size_t kMinShapes = 3;
// Of each tuned shape's records, the configs within this factor of its best are the candidates:
// what was fast elsewhere is where a model's judgement is surest.
constexpr double kNearBestFactor = 1.25;
// A config replaces the fallback only where the model expects it this much faster (log2 of the
// speed-up): between configs it cannot tell apart it would pick by noise in what it learnt.
const double kMinPredictedGain = std::log2(1.1);
// The model is used only where, trained without a tuned shape, its picks for that shape ran in at
// most this fraction of the fallback's time there (geometric mean over the shapes held out, at
// least `kMinHeldOutShapes` of them). The check flatters the model (a held-out shape can only
// judge configs its own tuning measured, which were chosen as promising there), so the bar is
// well below 1: on a log of ResNet-18's and MobileNetV2's layers the check gave 0.90, yet the
// model's picks for twenty far layers of GoogLeNet, DenseNet-121 and four mobile CNNs ran in 0.98
// of the fallback's time with cold weights (0.74-1.23 per layer) and 1.04 hot, while it promised
// 1.1-2.2x speed-ups.
constexpr double kTrustedHeldOutRatio = 0.85;
constexpr int kMinHeldOutShapes = 3;
constexpr size_t kMaxFolds = 4;

// What was learnt from one template's records on one target.
struct TemplateModel {
  std::shared_ptr<XGBoostCostModel> model;  ///< null: too little to learn from
  int64_t records = 0;
  size_t shapes = 0;
  int held_out_shapes = 0;    ///< shapes the held-out check could judge
  double held_out_ratio = 1;  ///< geometric mean of pick / fallback time on them
  bool trusted = false;       ///< the check passed
};

std::mutex models_mutex;
// Never destroyed: XGBoost's own globals may be gone before a destructor at exit would run.
auto* const template_models = new std::map<std::string, TemplateModel>;

std::shared_ptr<XGBoostCostModel> Fit(const TrainingSet& history) {
  // Regression on log2 throughput, so that scores differ by predicted log speed-ups (a ranking
  // objective's scores have no unit to hold a margin in).
  XGBoostOptions options;
  options.objective = "reg:squarederror";
  options.label = CostLabel::kLogThroughput;
  // A build pays for five fits per template (the model and its held-out check): fewer rounds than
  // the tuner's, which ranks thousands of candidates where this ranks tens.
  options.rounds = 100;
  auto model = std::make_shared<XGBoostCostModel>(options);
  model->Fit(history.features, history.costs, history.group_sizes);
  return model;
}

// The configs of `records` within `kNearBestFactor` of their workload's best that fit `space`.
std::vector<space::ConfigEntity> NearBestConfigs(const std::vector<tuning::MeasureRecord>& records,
                                                 const space::ConfigSpace& space) {
  std::map<std::string, double> best;
  for (const tuning::MeasureRecord& r : records) {
    const double cost = BestRepeatCost(r);
    auto [it, fresh] = best.try_emplace(r.workload_key(), cost);
    if (!fresh) it->second = std::min(it->second, cost);
  }
  std::vector<space::ConfigEntity> out;
  for (const tuning::MeasureRecord& r : records) {
    if (BestRepeatCost(r) > kNearBestFactor * best[r.workload_key()]) continue;
    try {
      out.push_back(space::ConfigFromProto(space, r.config()));
    } catch (const UserError&) {
      // Its tiles do not divide this shape's extents.
    }
  }
  return out;
}

// The fallback of `space` first, then `near_best`, each once. Not the rest of the space: a config
// no shape was fast with is where the model guesses (a block of 56 channels, between the 48 and
// 64 it saw do well, ran 2.8 times slower than the fallback on AVX-512).
std::vector<space::ConfigEntity> Candidates(const space::ConfigSpace& space,
                                            const std::vector<space::ConfigEntity>& near_best) {
  std::vector<space::ConfigEntity> out;
  std::set<int64_t> seen;
  auto add = [&](const space::ConfigEntity& c) {
    if (seen.insert(c.index()).second) out.push_back(c);
  };
  add(space.Fallback());
  for (const space::ConfigEntity& c : near_best) add(c);
  return out;
}

// The index in `candidates` (the fallback first) that `model` picks for `workload_key`: the one
// it predicts fastest where that is at least `kMinPredictedGain` faster than the fallback, else
// 0. `gain` gets the predicted speed-up.
size_t Pick(const XGBoostCostModel& model, const std::vector<space::ConfigEntity>& candidates,
            const std::string& workload_key, double* gain) {
  FeatureMatrix rows;
  for (const space::ConfigEntity& c : candidates) {
    rows.AddRow(CandidateFeatures(c, workload_key));
  }
  const std::vector<double> scores = model.Predict(rows);
  // Ties go to the earlier candidate: the fallback first.
  const size_t best =
      static_cast<size_t>(std::max_element(scores.begin(), scores.end()) - scores.begin());
  *gain = std::exp2(scores[best] - scores[0]);
  return scores[best] - scores[0] < kMinPredictedGain ? 0 : best;
}

// `records` by workload key.
std::map<std::string, std::vector<tuning::MeasureRecord>> ByShape(
    const std::vector<tuning::MeasureRecord>& records) {
  std::map<std::string, std::vector<tuning::MeasureRecord>> out;
  for (const tuning::MeasureRecord& r : records) out[r.workload_key()].push_back(r);
  return out;
}

// How the model does on shapes it was not trained on: the shapes are split into folds; a model
// fit without a fold picks, for each shape of it whose fallback was measured, among its
// fallback and the configs near-best elsewhere that were measured on it too, and the pick's time
// there is compared with the fallback's.
void CheckHeldOut(const std::vector<tuning::MeasureRecord>& records, const std::string& target,
                  int64_t width, int version, TemplateModel* out) {
  const auto shapes = ByShape(records);
  const size_t folds = std::min(kMaxFolds, shapes.size());
  double log_ratios = 0;
  size_t position = 0;
  std::map<std::string, size_t> fold_of;
  for (const auto& entry : shapes) fold_of[entry.first] = position++ % folds;
  for (size_t fold = 0; fold < folds; ++fold) {
    std::vector<tuning::MeasureRecord> training;
    for (const tuning::MeasureRecord& r : records) {
      if (fold_of[r.workload_key()] != fold) training.push_back(r);
    }
    const TrainingSet history = HistoryTrainingSet(training, "", width, version);
    if (history.features.rows() == 0) continue;
    const std::shared_ptr<XGBoostCostModel> model = Fit(history);
    for (const auto& [key, own] : shapes) {
      if (fold_of[key] != fold) continue;
      std::optional<task::Task> task;
      try {
        task.emplace(key, target);
      } catch (const UserError&) {
        continue;  // a workload this build's template no longer takes
      }
      const space::ConfigSpace& space = task->config_space();
      std::map<int64_t, double> measured;  // config index -> fastest time on this shape
      for (const tuning::MeasureRecord& r : own) {
        try {
          const int64_t index = space::ConfigFromProto(space, r.config()).index();
          auto [it, fresh] = measured.try_emplace(index, BestRepeatCost(r));
          if (!fresh) it->second = std::min(it->second, BestRepeatCost(r));
        } catch (const UserError&) {
          // A record of an older space of the template: not a config of this one.
        }
      }
      const auto fallback = measured.find(space.Fallback().index());
      if (fallback == measured.end() || !std::isfinite(fallback->second)) continue;
      std::vector<space::ConfigEntity> near_best;
      for (const space::ConfigEntity& c : NearBestConfigs(training, space)) {
        if (measured.count(c.index())) near_best.push_back(c);
      }
      const std::vector<space::ConfigEntity> candidates = Candidates(space, near_best);
      if (candidates.size() < 2) continue;
      double gain = 1;
      const size_t pick = Pick(*model, candidates, key, &gain);
      log_ratios += std::log(measured[candidates[pick].index()] / fallback->second);
      ++out->held_out_shapes;
    }
  }
  if (out->held_out_shapes > 0) out->held_out_ratio = std::exp(log_ratios / out->held_out_shapes);
  out->trusted =
      out->held_out_shapes >= kMinHeldOutShapes && out->held_out_ratio <= kTrustedHeldOutRatio;
}

// The model of `records` (every tuned shape of one template, version and target), trained and
// checked once per process for the same cache key. The asking task's shape is never among them:
// a build asks only for a workload without records of its own.
TemplateModel ModelOf(const std::string& cache_key,
                      const std::vector<tuning::MeasureRecord>& records, const std::string& target,
                      int64_t width, int version) {
  std::lock_guard<std::mutex> lock(models_mutex);
  auto found = template_models->find(cache_key);
  if (found != template_models->end()) return found->second;
  TemplateModel trained;
  const TrainingSet history = HistoryTrainingSet(records, "", width, version);
  trained.records = history.features.rows();
  trained.shapes = ByShape(records).size();
  if (trained.records >= kMinRecords && trained.shapes >= kMinShapes) {
    trained.model = Fit(history);
    CheckHeldOut(records, target, width, version, &trained);
  }
  (*template_models)[cache_key] = trained;
  return trained;
}

}  // namespace

std::optional<ChosenConfig> PredictedConfig(const task::Task& task,
                                            const records::RecordSource& log) {
  records::RecordFilter filter;
  filter.template_name = records::TemplateOfWorkload(task.workload_key());
  filter.target = task.target();
  filter.only_successful = true;
  std::vector<tuning::MeasureRecord> records = log.List(filter);
  const int version = task.templ().version;
  records.erase(std::remove_if(records.begin(), records.end(),
                               [&](const tuning::MeasureRecord& r) {
                                 return r.in_model() || records::TemplateVersionOf(r) != version;
                               }),
                records.end());
  if (static_cast<int64_t>(records.size()) < kMinRecords) return std::nullopt;
  const space::ConfigSpace& space = task.config_space();
  const int64_t width =
      static_cast<int64_t>(CandidateFeatures(space.Fallback(), task.workload_key()).size());
  const std::string cache_key = log.SourceName() + "\n" + filter.template_name + "\n" +
                                std::to_string(version) + "\n" + task.target() + "\n" +
                                std::to_string(records.size());
  const TemplateModel trained = ModelOf(cache_key, records, task.target(), width, version);
  if (!trained.model || !trained.trusted) return std::nullopt;

  std::vector<tuning::MeasureRecord> others;
  for (tuning::MeasureRecord& r : records) {
    if (r.workload_key() != task.workload_key()) others.push_back(std::move(r));
  }
  const std::vector<space::ConfigEntity> candidates =
      Candidates(space, NearBestConfigs(others, space));
  double gain = 1;
  const size_t pick = Pick(*trained.model, candidates, task.workload_key(), &gain);
  if (pick == 0) return std::nullopt;  // the fallback, which says so itself
  ChosenConfig chosen{candidates[pick], std::nullopt};
  std::ostringstream from;
  from.setf(std::ios::fixed);
  from.precision(2);
  from << "the cost model of " << trained.records << " records of " << trained.shapes
       << " tuned shapes (predicted " << gain << "x the fallback's speed; on "
       << trained.held_out_shapes << " shapes held out from it, its picks ran in "
       << trained.held_out_ratio << "x the fallback's time)";
  chosen.predicted_from = from.str();
  return chosen;
}

}  // namespace tuner
}  // namespace tessera
