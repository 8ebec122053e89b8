/// \file
/// A gradient-boosted-trees cost model (XGBoost through its C API) that ranks candidate
/// configurations: trained with a ranking objective on measured costs, it scores unmeasured
/// candidates so that the search measures the promising ones first.
#ifndef TESSERA_TUNER_COST_MODEL_XGBOOST_COST_MODEL_H_
#define TESSERA_TUNER_COST_MODEL_XGBOOST_COST_MODEL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tuner/cost_model/feature_matrix.h"

namespace tessera {
namespace tuner {

/// How measured costs become training labels (within each group).
enum class CostLabel {
  kRelativeThroughput,  ///< best cost / cost, in (0, 1]; failures 0
  kLogThroughput,       ///< log2(best cost / cost), <= 0; failures one below the worst success
};

/// Training parameters.
struct XGBoostOptions {
  std::string objective = "rank:pairwise";  ///< or "reg:squarederror"
  /// Only a regression objective sees the labels' scale; a ranking one sees their order.
  CostLabel label = CostLabel::kRelativeThroughput;
  // Deeper trees with more, smaller steps ranked held-out measured dense configs better than
  // depth 4, eta 0.3, 100 rounds (//bench:cost_model_eval; docs/tuner.md, "Cost model").
  int rounds = 300;  ///< boosting rounds per fit
  int max_depth = 6;
  double eta = 0.1;
  double gamma = 1e-4;
  double min_child_weight = 1;
  int num_threads = 1;
  uint64_t seed = 0;
  /// Rows of the task's own measurements after which a base model's weight halves.
  double base_half_life = 256;
};

/// Labels for measured costs: throughput relative to the best of each group (best cost / cost,
/// in (0, 1]); failed measurements (non-finite cost) get 0. `group_sizes` empty: one group.
std::vector<float> RelativeThroughputLabels(const std::vector<double>& costs,
                                            const std::vector<unsigned>& group_sizes = {});

/// `RelativeThroughputLabels` on a log2 scale: log2(best cost / cost), so that a regression
/// objective weighs a 2x gap alike among slow and fast candidates; failed measurements get one
/// less than the group's worst success (-1 when none succeeded).
std::vector<float> LogThroughputLabels(const std::vector<double>& costs,
                                       const std::vector<unsigned>& group_sizes = {});

/// An XGBoost ranking model. Not copyable; `Predict` may be called from one thread at a time.
class XGBoostCostModel {
 public:
  /// A model that has not been trained.
  explicit XGBoostCostModel(XGBoostOptions options = {});
  ~XGBoostCostModel();
  XGBoostCostModel(const XGBoostCostModel&) = delete;
  XGBoostCostModel& operator=(const XGBoostCostModel&) = delete;

  /// Trains a fresh model on `features` and measured `costs` (seconds; +infinity for failures).
  /// Rows are compared only within their group (`group_sizes`, contiguous; empty: one group).
  /// With a base model, its discounted scores are the starting margin. Throws `UserError` on
  /// mismatched sizes or an empty matrix.
  /// `group_weights` (one per group, or empty for all 1) scale how much each group's pairs count.
  void Fit(const FeatureMatrix& features, const std::vector<double>& costs,
           const std::vector<unsigned>& group_sizes = {},
           const std::vector<float>& group_weights = {});

  /// Scores of the rows: higher means predicted faster. Needs a trained model or a base model;
  /// throws `UserError` when the row width differs from the training data's.
  std::vector<double> Predict(const FeatureMatrix& features) const;

  /// Uses `base` (trained on other workloads) as a prior: its scores times `base_discount()` are
  /// added to this model's. The discount is 2^(-n/h) for n rows in the latest `Fit` (1 before
  /// any) and h = `XGBoostOptions::base_half_life`; the base is dropped below 0.05.
  void SetBaseModel(std::shared_ptr<const XGBoostCostModel> base);

  /// True after a successful `Fit`.
  bool trained() const { return booster_ != nullptr; }
  /// True while a base model is in use.
  bool has_base_model() const { return base_ != nullptr; }
  /// The weight of the base model's scores now.
  double base_discount() const { return base_discount_; }
  /// Width of the rows of the latest `Fit` (0 before any).
  int64_t num_features() const { return num_features_; }

 private:
  std::vector<double> BaseMargin(const FeatureMatrix& features) const;
  bool Ranking() const;
  std::vector<float> WeightsFor(const std::vector<float>& group_weights,
                                const std::vector<unsigned>& group_sizes) const;

  XGBoostOptions options_;
  void* booster_ = nullptr;  // BoosterHandle
  int64_t num_features_ = 0;
  std::shared_ptr<const XGBoostCostModel> base_;
  double base_discount_ = 1.0;
};

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_COST_MODEL_XGBOOST_COST_MODEL_H_
