#include "tuner/search/model_based_tuner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "compiler/space/mutation.h"
#include "compiler/support/error.h"
#include "tests/tuner/testing/measure.h"
#include "tests/tuner/testing/synthetic_models.h"
#include "tuner/cost_model/knob_features.h"
#include "tuner/cost_model/ranking_metrics.h"
#include "tuner/cost_model/transfer.h"
#include "tuner/search/random_tuner.h"

namespace tessera {
namespace tuner {
namespace {

// The optimum of this 69,828-point space is sharp: 5000 random trials do not get within 5%.
TEST(ModelBasedTunerTest, FindsTheOptimumInFarFewerTrialsThanRandom) {
  testing::SyntheticDense dense{1024, 1024, 1024};
  double target = testing::OptimalCost(dense) * 1.05;
  for (uint64_t seed : {1, 2}) {
    ModelBasedTuner xgb(dense.Space(), seed, FeaturesOf(dense));
    TuneResult r = xgb.Tune({320, 64, -1}, testing::SyntheticMeasure(dense));
    int64_t reached = testing::TrialsToReach(r.history, target);
    EXPECT_GT(reached, 0) << "seed " << seed;
    EXPECT_LE(reached, 320) << "seed " << seed;
    EXPECT_EQ(xgb.refits(), 5);

    RandomTuner random(dense.Space(), seed);
    TuneResult q = random.Tune({320, 64, -1}, testing::SyntheticMeasure(dense));
    EXPECT_EQ(testing::TrialsToReach(q.history, target), 0) << "seed " << seed;
    EXPECT_LT(r.best->outcome.cost, q.best->outcome.cost);
  }
}

TEST(ModelBasedTunerTest, TransferFromOtherShapesFindsTheOptimumSooner) {
  testing::SyntheticDense dense{1024, 1024, 1024};
  double target = testing::OptimalCost(dense) * 1.05;
  ModelBasedTuner with_transfer(dense.Space(), 1, FeaturesOf(dense));
  with_transfer.SetBaseModel(testing::BaseFromOtherShapes());
  TuneResult t = with_transfer.Tune({64, 64, -1}, testing::SyntheticMeasure(dense));
  int64_t reached = testing::TrialsToReach(t.history, target);
  EXPECT_GT(reached, 0);
  EXPECT_LE(reached, 64);

  ModelBasedTuner without(dense.Space(), 1, FeaturesOf(dense));
  TuneResult w = without.Tune({64, 64, -1}, testing::SyntheticMeasure(dense));
  EXPECT_EQ(testing::TrialsToReach(w.history, target), 0);  // its first plan is random
}

TEST(ModelBasedTunerTest, JointFitsWithTheHistoryFindTheOptimumSooner) {
  testing::SyntheticDense dense{1024, 1024, 1024};
  double target = testing::OptimalCost(dense) * 1.05;
  ModelBasedTuner joint(dense.Space(), 1, FeaturesOf(dense));
  joint.SetTransferHistory(testing::HistoryOfOtherShapes());
  EXPECT_EQ(joint.refits(), 0);  // the history alone plans the first batch
  TuneResult t = joint.Tune({64, 16, -1}, testing::SyntheticMeasure(dense));
  int64_t reached = testing::TrialsToReach(t.history, target);
  EXPECT_GT(reached, 0);
  EXPECT_LE(reached, 64);
  EXPECT_EQ(joint.refits(), 3);  // after 16, 32 and 64 measurements, each with the history

  TrainingSet narrow;
  narrow.features.AddRow({1.f, 2.f});
  narrow.costs.push_back(1.0);
  narrow.group_sizes.push_back(1);
  ModelBasedTuner mismatched(dense.Space(), 1, FeaturesOf(dense));
  try {
    mismatched.SetTransferHistory(narrow);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("transfer history rows have 2 features"));
  }
}

TEST(ModelBasedTunerTest, TheFirstFitsComeSoonerThenEveryPlan) {
  testing::SyntheticDense dense{1024, 1024, 1024};
  ModelBasedTuner xgb(dense.Space(), 1, FeaturesOf(dense));
  std::vector<int> refits_after_batch;
  xgb.Tune({160, 16, -1}, testing::SyntheticMeasure(dense),
           [&](const TuneProgress&, const std::vector<Trial>&) {
             refits_after_batch.push_back(xgb.refits());
           });
  // Fits after 16, 32, 64 and 128 measurements.
  EXPECT_EQ(refits_after_batch, (std::vector<int>{1, 2, 2, 3, 3, 3, 3, 4, 4, 4}));
}

TEST(ModelBasedTunerTest, ResumedHistoryTrainsTheModelAndIsNotMeasuredAgain) {
  testing::SyntheticDense dense{256, 512, 128};
  space::ConfigSpace s = dense.Space();
  std::mt19937_64 rng(11);
  std::vector<Trial> history;
  std::set<int64_t> old;
  while (history.size() < 100) {
    auto c = space::RandomConfig(s, rng);
    if (!old.insert(c.index()).second) continue;
    history.push_back({c, testing::SyntheticMeasure(dense)({c})[0]});
  }
  ModelBasedTuner xgb(s, 3, FeaturesOf(dense), {32, 0.05, {}, {}});
  xgb.LoadHistory(history);
  EXPECT_EQ(xgb.refits(), 1);  // 100 records: one fit, not three
  std::vector<int64_t> measured;
  TuneResult r = xgb.Tune({64, 16, -1}, testing::SyntheticMeasure(dense, &measured));
  EXPECT_EQ(r.trials, 64);
  EXPECT_EQ(xgb.refits(), 3);  // once 128 and 160 records are reached
  for (int64_t index : measured) EXPECT_EQ(old.count(index), 0u) << index;
  EXPECT_EQ(std::set<int64_t>(measured.begin(), measured.end()).size(), measured.size());
}

// Each trial's mean says the opposite of its fastest repeat (a noisy repeat inflated it): the
// model must rank by the fastest repeat.
TEST(ModelBasedTunerTest, TheModelLearnsFromTheFastestRepeat) {
  testing::SyntheticDense dense{256, 512, 128};
  space::ConfigSpace s = dense.Space();
  std::mt19937_64 rng(5);
  std::vector<Trial> history;
  std::set<int64_t> seen;
  while (history.size() < 64) {
    auto c = space::RandomConfig(s, rng);
    if (!seen.insert(c.index()).second) continue;
    MeasureOutcome o = testing::SyntheticMeasure(dense)({c})[0];
    double fastest = o.cost;
    o.costs = {fastest, 1.0 / fastest};  // slow configs got the quiet repeat, fast ones a noisy one
    o.cost = (o.costs[0] + o.costs[1]) / 2;
    history.push_back({c, o});
  }
  ModelBasedTuner xgb(s, 1, FeaturesOf(dense));
  xgb.LoadHistory(history);
  ASSERT_EQ(xgb.refits(), 1);
  FeatureMatrix rows;
  std::vector<double> fastest;
  for (const Trial& t : history) {
    rows.AddRow(FeaturesOf(dense)(t.config));
    fastest.push_back(t.outcome.costs[0]);
  }
  EXPECT_GT(PairwiseRankingAccuracy(xgb.model().Predict(rows), fastest), 0.9);
}

TEST(ModelBasedTunerTest, BadOptionsAreUserErrors) {
  testing::SyntheticDense dense;
  EXPECT_THROW(ModelBasedTuner(dense.Space(), 1, FeaturesOf(dense), {0, 0.05, {}, {}}), UserError);
  EXPECT_THROW(ModelBasedTuner(dense.Space(), 1, FeaturesOf(dense), {64, 1.5, {}, {}}), UserError);
  EXPECT_THROW(ModelBasedTuner(dense.Space(), 1, FeaturesOf(dense), {64, 0.05, {}, {}, 0}),
               UserError);
}

}  // namespace
}  // namespace tuner
}  // namespace tessera
