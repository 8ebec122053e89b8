#include "tuner/cost_model/xgboost_cost_model.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "compiler/space/mutation.h"
#include "compiler/support/error.h"
#include "tests/tuner/testing/synthetic_dense.h"
#include "tuner/cost_model/knob_features.h"
#include "tuner/cost_model/ranking_metrics.h"

namespace tessera {
namespace tuner {
namespace {

using ::testing::HasSubstr;

struct Sample {
  FeatureMatrix features;
  std::vector<double> costs;
};

Sample Draw(const testing::SyntheticDense& dense, int count, uint64_t seed) {
  space::ConfigSpace s = dense.Space();
  std::mt19937_64 rng(seed);
  Sample out;
  for (int i = 0; i < count; ++i) {
    space::ConfigEntity c = space::RandomConfig(s, rng);
    out.features.AddRow(CandidateFeatures(c, dense.WorkloadKey()));
    out.costs.push_back(dense.Cost(c));
  }
  return out;
}

// Ranking accuracy over the successful held-out rows (failures are trivially last).
double HeldOutAccuracy(const XGBoostCostModel& model, const Sample& test) {
  std::vector<double> scores = model.Predict(test.features);
  std::vector<double> s, c;
  for (size_t i = 0; i < scores.size(); ++i) {
    if (!std::isfinite(test.costs[i])) continue;
    s.push_back(scores[i]);
    c.push_back(test.costs[i]);
  }
  return PairwiseRankingAccuracy(s, c);
}

TEST(XGBoostCostModelTest, LabelsAreThroughputRelativeToTheGroupBest) {
  double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(RelativeThroughputLabels({2, 1, inf, 4}), (std::vector<float>{0.5, 1, 0, 0.25}));
  EXPECT_EQ(RelativeThroughputLabels({2, 1, 10, 40}, {2, 2}),
            (std::vector<float>{0.5, 1, 1, 0.25}));
  EXPECT_EQ(RelativeThroughputLabels({inf, inf}), (std::vector<float>{0, 0}));
}

TEST(XGBoostCostModelTest, LogLabelsPutFailuresBelowTheWorstSuccess) {
  double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(LogThroughputLabels({2, 1, inf, 4}), (std::vector<float>{-1, 0, -3, -2}));
  EXPECT_EQ(LogThroughputLabels({2, 1, 10, 80}, {2, 2}), (std::vector<float>{-1, 0, 0, -3}));
  EXPECT_EQ(LogThroughputLabels({inf, inf}), (std::vector<float>{-1, -1}));
}

TEST(XGBoostCostModelTest, RegressionOnLogThroughputRanksHeldOutConfigs) {
  testing::SyntheticDense dense{512, 512, 512};
  Sample train = Draw(dense, 256, 1);
  Sample test = Draw(dense, 200, 2);
  XGBoostOptions options;
  options.objective = "reg:squarederror";
  options.label = CostLabel::kLogThroughput;
  XGBoostCostModel model(options);
  model.Fit(train.features, train.costs);
  EXPECT_GE(HeldOutAccuracy(model, test), 0.85);
}

TEST(XGBoostCostModelTest, RanksHeldOutConfigsOfASmoothCost) {
  testing::SyntheticDense dense{512, 512, 512};
  Sample train = Draw(dense, 256, 1);
  Sample test = Draw(dense, 200, 2);
  XGBoostCostModel model;
  EXPECT_FALSE(model.trained());
  model.Fit(train.features, train.costs);
  EXPECT_TRUE(model.trained());
  EXPECT_GE(HeldOutAccuracy(model, test), 0.85);
}

TEST(XGBoostCostModelTest, TrainingIsDeterministic) {
  testing::SyntheticDense dense{128, 256, 64};
  Sample train = Draw(dense, 100, 3);
  XGBoostCostModel a, b;
  a.Fit(train.features, train.costs);
  b.Fit(train.features, train.costs);
  EXPECT_EQ(a.Predict(train.features), b.Predict(train.features));
}

TEST(XGBoostCostModelTest, BadInputIsAUserError) {
  testing::SyntheticDense dense;
  Sample train = Draw(dense, 10, 4);
  XGBoostCostModel model;
  try {
    model.Predict(train.features);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("predict called before the model was trained"));
  }
  try {
    model.Fit(train.features, {1.0, 2.0});
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("10 feature rows but 2 costs"));
  }
  EXPECT_THROW(model.Fit(FeatureMatrix(), {}), UserError);
  EXPECT_THROW(model.Fit(train.features, train.costs, {3, 3}), UserError);
  model.Fit(train.features, train.costs);
  FeatureMatrix narrow;
  narrow.AddRow({1.f, 2.f});
  try {
    model.Predict(narrow);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("rows have 2 features, the model was trained on"));
  }
  try {
    narrow.AddRow({1.f});
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("feature row 1 has 1 values, the earlier rows have 2"));
  }
  try {
    model.Fit(train.features, train.costs, {5, 5}, {1.f});
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("1 group weights for 2 groups"));
  }
}

// Two groups of the same rows whose costs disagree: x faster when small, x faster when large.
struct DisagreeingGroups {
  FeatureMatrix features;
  std::vector<double> costs;
  std::vector<unsigned> groups{20, 20};
  DisagreeingGroups() {
    for (int group = 0; group < 2; ++group) {
      for (int x = 0; x < 20; ++x) {
        features.AddRow({static_cast<float>(x), 1.f});
        costs.push_back(group == 0 ? 1.0 + x : 21.0 - x);
      }
    }
  }
};

// +1 when the model prefers small x (group 0's order), -1 when large x (group 1's).
int PreferredOrder(const XGBoostCostModel& model) {
  FeatureMatrix probe;
  probe.AddRow({2.f, 1.f});
  probe.AddRow({17.f, 1.f});
  std::vector<double> scores = model.Predict(probe);
  return scores[0] > scores[1] ? 1 : -1;
}

TEST(XGBoostCostModelTest, GroupWeightsDecideBetweenDisagreeingGroups) {
  DisagreeingGroups data;
  for (const char* objective : {"rank:pairwise", "reg:squarederror"}) {
    SCOPED_TRACE(objective);
    XGBoostOptions options;
    options.objective = objective;
    XGBoostCostModel first(options), second(options);
    first.Fit(data.features, data.costs, data.groups, {10.f, 1.f});
    second.Fit(data.features, data.costs, data.groups, {1.f, 10.f});
    EXPECT_EQ(PreferredOrder(first), 1);
    EXPECT_EQ(PreferredOrder(second), -1);
  }
}

}  // namespace
}  // namespace tuner
}  // namespace tessera
