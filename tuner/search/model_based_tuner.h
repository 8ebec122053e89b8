/// \file
/// Model-based search (the XGBoost tuner): measure a random first batch, fit a ranking model on
/// everything measured, let simulated annealing pick the next plan of configurations the model
/// ranks highest, measure them with a few random ones mixed in (ε-greedy), refit, repeat.
#ifndef TESSERA_TUNER_SEARCH_MODEL_BASED_TUNER_H_
#define TESSERA_TUNER_SEARCH_MODEL_BASED_TUNER_H_

#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "tuner/cost_model/feature_matrix.h"
#include "tuner/cost_model/transfer.h"
#include "tuner/cost_model/xgboost_cost_model.h"
#include "tuner/search/simulated_annealing.h"
#include "tuner/search/tuner.h"

namespace tessera {
namespace tuner {

/// The features of one candidate (all rows of one tuner must have one width).
using FeatureFn = std::function<std::vector<float>(const space::ConfigEntity&)>;

/// Parameters of the model-based search.
struct ModelBasedOptions {
  int plan_size = 64;     ///< candidates planned per refit; the model is refit every plan_size
  double epsilon = 0.05;  ///< share of each plan replaced by random configurations
  AnnealingOptions annealing;
  XGBoostOptions model;
  /// The first fit comes after this many measurements, and the gap doubles up to plan_size: a
  /// model of 16 random trials already steers better than 48 more random ones.
  int first_fit = 16;
};

/// XGBoost + simulated annealing.
class ModelBasedTuner : public Tuner {
 public:
  /// A model-based search over `space` with candidate features from `features`; throws
  /// `UserError` on bad options.
  ModelBasedTuner(space::ConfigSpace space, uint64_t seed, FeatureFn features,
                  ModelBasedOptions options = {});

  /// Transfer learning: `base` (trained on other workloads) is the model's prior, and the first
  /// plan comes from it instead of random sampling.
  void SetBaseModel(std::shared_ptr<const XGBoostCostModel> base);

  /// Transfer learning by joint fits: the first plan comes from a model of `history` (rows of
  /// other workloads, see `HistoryTrainingSet`), and every refit trains on the history and the
  /// task's own measurements together (`FitWithHistory` with `own_share`). Unlike a fading base
  /// model, what the shapes share is never forgotten. Throws `UserError` when the rows' width
  /// differs from the tuner's features.
  void SetTransferHistory(TrainingSet history, double own_share = 0.1);

  /// How many times the model has been fit.
  int refits() const { return refits_; }
  /// The model (for inspection).
  const XGBoostCostModel& model() const { return model_; }

 protected:
  std::vector<space::ConfigEntity> NextBatch(int count) override;
  void Update(const std::vector<Trial>& trials) override;

 private:
  const std::vector<float>& Features(const space::ConfigEntity& config);
  std::vector<double> Score(const std::vector<space::ConfigEntity>& configs);
  void Replan();

  FeatureFn features_;
  ModelBasedOptions options_;
  TrainingSet history_;
  double own_share_ = 0;
  XGBoostCostModel model_;
  SimulatedAnnealing annealing_;
  std::unordered_map<int64_t, std::vector<float>> feature_cache_;
  FeatureMatrix measured_features_;
  std::vector<double> measured_costs_;
  bool any_success_ = false;
  std::vector<space::ConfigEntity> plan_;
  size_t plan_position_ = 0;
  int refits_ = 0;
  int64_t next_fit_ = 0;  // measurements at which the model is fit next
};

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_SEARCH_MODEL_BASED_TUNER_H_
