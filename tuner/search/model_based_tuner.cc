#include "tuner/search/model_based_tuner.h"

#include <algorithm>
#include <limits>

#include "compiler/support/error.h"

namespace tessera {
namespace tuner {
namespace {

// Features are cheap to recompute; the cache only has to cover one annealing run.
constexpr size_t kMaxCachedFeatures = 1 << 18;

// The model learns from the fastest repeat: interference only ever adds time, so the minimum
// is the least noisy estimate of a candidate's speed (ranking accuracy 0.80 against 0.67 with
// the mean on the same records, see //bench:cost_model_eval).
double ModelCost(const MeasureOutcome& outcome) {
  if (!outcome.ok()) return std::numeric_limits<double>::infinity();
  if (outcome.costs.empty()) return outcome.cost;
  return *std::min_element(outcome.costs.begin(), outcome.costs.end());
}

}  // namespace

ModelBasedTuner::ModelBasedTuner(space::ConfigSpace space, uint64_t seed, FeatureFn features,
                                 ModelBasedOptions options)
    : Tuner(std::move(space), seed),
      features_(std::move(features)),
      options_(options),
      model_(options.model),
      annealing_(options.annealing) {
  TESSERA_USER_CHECK(options_.plan_size >= 1)
      << "model-based tuner: plan size must be at least 1, got " << options_.plan_size;
  TESSERA_USER_CHECK(options_.epsilon >= 0 && options_.epsilon <= 1)
      << "model-based tuner: epsilon must be in [0, 1], got " << options_.epsilon;
  TESSERA_USER_CHECK(options_.first_fit >= 1)
      << "model-based tuner: first fit must come after at least 1 measurement, got "
      << options_.first_fit;
  next_fit_ = std::min(options_.first_fit, options_.plan_size);
}

void ModelBasedTuner::SetBaseModel(std::shared_ptr<const XGBoostCostModel> base) {
  model_.SetBaseModel(std::move(base));
  if (plan_.empty() && refits_ == 0) Replan();
}

void ModelBasedTuner::SetTransferHistory(TrainingSet history, double own_share) {
  if (history.features.rows() == 0) return;
  int64_t width = static_cast<int64_t>(Features(space_.Fallback()).size());
  TESSERA_USER_CHECK(history.features.cols() == width)
      << "model-based tuner: transfer history rows have " << history.features.cols()
      << " features, the task's have " << width;
  history_ = std::move(history);
  own_share_ = own_share;
  if (measured_features_.rows() > 0) return;  // the next refit uses it
  model_.Fit(history_.features, history_.costs, history_.group_sizes);
  if (plan_.empty() && refits_ == 0) Replan();
}

const std::vector<float>& ModelBasedTuner::Features(const space::ConfigEntity& config) {
  auto it = feature_cache_.find(config.index());
  if (it != feature_cache_.end()) return it->second;
  if (feature_cache_.size() >= kMaxCachedFeatures) feature_cache_.clear();
  return feature_cache_.emplace(config.index(), features_(config)).first->second;
}

std::vector<double> ModelBasedTuner::Score(const std::vector<space::ConfigEntity>& configs) {
  FeatureMatrix rows;
  for (const auto& c : configs) rows.AddRow(Features(c));
  return model_.Predict(rows);
}

void ModelBasedTuner::Replan() {
  plan_ = annealing_.FindMaximums(
      space_, [this](const std::vector<space::ConfigEntity>& c) { return Score(c); },
      options_.plan_size, [this](int64_t index) { return IsVisited(index); }, rng_);
  plan_position_ = 0;
}

std::vector<space::ConfigEntity> ModelBasedTuner::NextBatch(int count) {
  std::vector<space::ConfigEntity> batch;
  size_t random_slots = static_cast<size_t>(options_.epsilon * options_.plan_size);
  while (static_cast<int>(batch.size()) < count && unvisited() > 0) {
    // The tail of every plan is random: the model only learns about regions it is shown.
    if (plan_position_ + random_slots >= plan_.size()) {
      batch.push_back(ClaimRandom());
      continue;
    }
    const space::ConfigEntity& next = plan_[plan_position_++];
    if (Claim(next.index())) batch.push_back(next);
  }
  return batch;
}

void ModelBasedTuner::Update(const std::vector<Trial>& trials) {
  for (const Trial& t : trials) {
    measured_features_.AddRow(Features(t.config));
    measured_costs_.push_back(ModelCost(t.outcome));
    any_success_ |= t.outcome.ok();
  }
  int64_t rows = measured_features_.rows();
  if (rows < next_fit_ || !any_success_ || unvisited() == 0) return;
  // Without transfer history this is a plain fit on the measurements.
  FitWithHistory(model_, history_, measured_features_, measured_costs_, own_share_);
  ++refits_;
  // A resumed run may bring several plans' worth of history at once: one fit covers them all.
  next_fit_ = rows + std::min<int64_t>(options_.plan_size, rows);
  Replan();
}

}  // namespace tuner
}  // namespace tessera
