#include "tuner/cost_model/xgboost_cost_model.h"

#include <xgboost/c_api.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>

#include "compiler/support/error.h"

namespace tessera {
namespace tuner {
namespace {

// The prior fades as the task's own measurements accumulate.
constexpr double kMinDiscount = 0.05;

void Check(int status, const char* call) {
  TESSERA_INTERNAL_CHECK(status == 0) << call << " failed: " << XGBGetLastError();
}

void QuietXGBoost() {
  static std::once_flag once;
  std::call_once(once,
                 [] { Check(XGBSetGlobalConfig("{\"verbosity\":0}"), "XGBSetGlobalConfig"); });
}

// Owns a DMatrix for the duration of one call.
class DMatrix {
 public:
  explicit DMatrix(const FeatureMatrix& features) {
    Check(XGDMatrixCreateFromMat(features.data().data(), features.rows(), features.cols(),
                                 std::numeric_limits<float>::quiet_NaN(), &handle_),
          "XGDMatrixCreateFromMat");
  }
  ~DMatrix() { XGDMatrixFree(handle_); }
  DMatrix(const DMatrix&) = delete;
  DMatrix& operator=(const DMatrix&) = delete;

  void SetFloats(const char* field, const std::vector<float>& values) {
    Check(XGDMatrixSetFloatInfo(handle_, field, values.data(), values.size()),
          "XGDMatrixSetFloatInfo");
  }
  void SetGroups(const std::vector<unsigned>& sizes) {
    Check(XGDMatrixSetUIntInfo(handle_, "group", sizes.data(), sizes.size()),
          "XGDMatrixSetUIntInfo");
  }
  DMatrixHandle handle() const { return handle_; }

 private:
  DMatrixHandle handle_ = nullptr;
};

std::vector<float> ToFloats(const std::vector<double>& values) {
  return std::vector<float>(values.begin(), values.end());
}

}  // namespace

std::vector<float> RelativeThroughputLabels(const std::vector<double>& costs,
                                            const std::vector<unsigned>& group_sizes) {
  std::vector<unsigned> groups = group_sizes;
  if (groups.empty()) groups.push_back(static_cast<unsigned>(costs.size()));
  std::vector<float> labels(costs.size(), 0.f);
  size_t begin = 0;
  for (unsigned size : groups) {
    double best = std::numeric_limits<double>::infinity();
    for (size_t i = begin; i < begin + size; ++i) {
      if (std::isfinite(costs[i]) && costs[i] > 0) best = std::min(best, costs[i]);
    }
    for (size_t i = begin; i < begin + size; ++i) {
      if (std::isfinite(costs[i]) && costs[i] > 0) labels[i] = static_cast<float>(best / costs[i]);
    }
    begin += size;
  }
  return labels;
}

std::vector<float> LogThroughputLabels(const std::vector<double>& costs,
                                       const std::vector<unsigned>& group_sizes) {
  std::vector<float> labels = RelativeThroughputLabels(costs, group_sizes);
  std::vector<unsigned> groups = group_sizes;
  if (groups.empty()) groups.push_back(static_cast<unsigned>(costs.size()));
  size_t begin = 0;
  for (unsigned size : groups) {
    float worst = 0;
    for (size_t i = begin; i < begin + size; ++i) {
      if (labels[i] > 0) {
        labels[i] = std::log2(labels[i]);
        worst = std::min(worst, labels[i]);
      } else {
        labels[i] = std::numeric_limits<float>::quiet_NaN();
      }
    }
    // Below every success but not by a margin that would dominate a squared error.
    for (size_t i = begin; i < begin + size; ++i) {
      if (std::isnan(labels[i])) labels[i] = worst - 1;
    }
    begin += size;
  }
  return labels;
}

XGBoostCostModel::XGBoostCostModel(XGBoostOptions options) : options_(std::move(options)) {
  QuietXGBoost();
}

XGBoostCostModel::~XGBoostCostModel() {
  if (booster_) XGBoosterFree(booster_);
}

void XGBoostCostModel::SetBaseModel(std::shared_ptr<const XGBoostCostModel> base) {
  base_ = std::move(base);
  base_discount_ = 1.0;
}

std::vector<double> XGBoostCostModel::BaseMargin(const FeatureMatrix& features) const {
  std::vector<double> margin = base_->Predict(features);
  for (double& m : margin) m *= base_discount_;
  return margin;
}

// A ranking objective compares rows within groups and takes one weight per group; any other
// objective (whose labels are already relative to their group) takes one weight per row.
bool XGBoostCostModel::Ranking() const { return options_.objective.rfind("rank:", 0) == 0; }

std::vector<float> XGBoostCostModel::WeightsFor(const std::vector<float>& group_weights,
                                                const std::vector<unsigned>& group_sizes) const {
  if (Ranking()) return group_weights;
  std::vector<float> rows;
  for (size_t g = 0; g < group_sizes.size(); ++g)
    rows.insert(rows.end(), group_sizes[g], group_weights[g]);
  return rows;
}

void XGBoostCostModel::Fit(const FeatureMatrix& features, const std::vector<double>& costs,
                           const std::vector<unsigned>& group_sizes,
                           const std::vector<float>& group_weights) {
  TESSERA_USER_CHECK(features.rows() > 0) << "cost model: cannot fit on zero rows";
  TESSERA_USER_CHECK(static_cast<int64_t>(costs.size()) == features.rows())
      << "cost model: " << features.rows() << " feature rows but " << costs.size() << " costs";
  int64_t grouped = 0;
  for (unsigned g : group_sizes) grouped += g;
  TESSERA_USER_CHECK(group_sizes.empty() || grouped == features.rows())
      << "cost model: group sizes add up to " << grouped << ", not to the " << features.rows()
      << " rows";
  TESSERA_USER_CHECK(group_weights.empty() || group_weights.size() == group_sizes.size())
      << "cost model: " << group_weights.size() << " group weights for " << group_sizes.size()
      << " groups";
  if (base_) {
    base_discount_ = std::pow(2.0, -static_cast<double>(features.rows()) / options_.base_half_life);
    if (base_discount_ < kMinDiscount) base_.reset();
  }

  DMatrix train(features);
  train.SetFloats("label", options_.label == CostLabel::kLogThroughput
                               ? LogThroughputLabels(costs, group_sizes)
                               : RelativeThroughputLabels(costs, group_sizes));
  if (!group_sizes.empty() && Ranking()) train.SetGroups(group_sizes);
  if (!group_weights.empty()) train.SetFloats("weight", WeightsFor(group_weights, group_sizes));
  if (base_) train.SetFloats("base_margin", ToFloats(BaseMargin(features)));

  if (booster_) {
    XGBoosterFree(booster_);
    booster_ = nullptr;
  }
  DMatrixHandle cache[] = {train.handle()};
  BoosterHandle booster = nullptr;
  Check(XGBoosterCreate(cache, 1, &booster), "XGBoosterCreate");
  booster_ = booster;
  auto set = [&](const char* name, const std::string& value) {
    Check(XGBoosterSetParam(booster, name, value.c_str()), "XGBoosterSetParam");
  };
  set("objective", options_.objective);
  set("max_depth", std::to_string(options_.max_depth));
  set("eta", std::to_string(options_.eta));
  set("gamma", std::to_string(options_.gamma));
  set("min_child_weight", std::to_string(options_.min_child_weight));
  set("nthread", std::to_string(options_.num_threads));
  set("seed", std::to_string(options_.seed));
  set("verbosity", "0");
  for (int round = 0; round < options_.rounds; ++round) {
    Check(XGBoosterUpdateOneIter(booster, round, train.handle()), "XGBoosterUpdateOneIter");
  }
  num_features_ = features.cols();
}

std::vector<double> XGBoostCostModel::Predict(const FeatureMatrix& features) const {
  if (features.rows() == 0) return {};
  if (!booster_) {
    TESSERA_USER_CHECK(base_ != nullptr)
        << "cost model: predict called before the model was trained";
    return base_->Predict(features);
  }
  TESSERA_USER_CHECK(features.cols() == num_features_)
      << "cost model: rows have " << features.cols() << " features, the model was trained on "
      << num_features_;
  DMatrix data(features);
  if (base_) data.SetFloats("base_margin", ToFloats(BaseMargin(features)));
  bst_ulong length = 0;
  const float* result = nullptr;
  // Option 1: raw margins; for a ranking objective these are the scores themselves.
  Check(XGBoosterPredict(booster_, data.handle(), 1, 0, 0, &length, &result), "XGBoosterPredict");
  TESSERA_INTERNAL_CHECK(static_cast<int64_t>(length) == features.rows())
      << length << " predictions for " << features.rows() << " rows";
  return std::vector<double>(result, result + length);
}

}  // namespace tuner
}  // namespace tessera
