#include "tuner/search/tuner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "compiler/support/error.h"
#include "tests/tuner/testing/measure.h"
#include "tuner/search/grid_tuner.h"
#include "tuner/search/random_tuner.h"

namespace tessera {
namespace tuner {
namespace {

using ::testing::HasSubstr;

space::ConfigSpace SmallSpace() {
  space::ConfigSpace s;
  s.DefineSplit("tile", 16, {space::SplitPolicy::kFactors, 2, 0});  // 5
  s.DefineKnob("unroll", {0, 4, 16});                               // 3
  return s;
}

// Cost: tile 4 and unroll 4 is best; tile 16 fails.
std::vector<MeasureOutcome> Measure(const std::vector<space::ConfigEntity>& batch) {
  std::vector<MeasureOutcome> out;
  for (const auto& c : batch) {
    MeasureOutcome o;
    int64_t tile = c.Split("tile")[1];
    if (tile == 16) {
      o.error = tuning::RUNTIME_ERROR;
      o.message = "crashed";
    } else {
      o.cost = 1.0 + std::abs(tile - 4) + std::abs(c.Value("unroll") - 4) * 0.1;
    }
    out.push_back(o);
  }
  return out;
}

TEST(TunerTest, RandomMeasuresEveryConfigOnceThenStops) {
  RandomTuner tuner(SmallSpace(), 7);
  std::vector<int64_t> progress_trials;
  TuneResult r = tuner.Tune({100, 4, -1}, Measure, [&](const TuneProgress& p, const auto& batch) {
    progress_trials.push_back(p.trials);
    EXPECT_LE(batch.size(), 4u);
  });
  EXPECT_EQ(r.trials, 15);
  EXPECT_TRUE(r.space_exhausted);
  EXPECT_EQ(r.failures, 3);
  std::set<int64_t> seen;
  for (const Trial& t : r.history) seen.insert(t.config.index());
  EXPECT_EQ(seen.size(), 15u);
  ASSERT_TRUE(r.best.has_value());
  EXPECT_EQ(r.best->config.Split("tile")[1], 4);
  EXPECT_EQ(r.best->config.Value("unroll"), 4);
  EXPECT_DOUBLE_EQ(r.best->outcome.cost, 1.0);
  EXPECT_EQ(progress_trials, (std::vector<int64_t>{4, 8, 12, 15}));
  EXPECT_EQ(tuner.unvisited(), 0);
}

TEST(TunerTest, RandomIsDeterministicPerSeed) {
  RandomTuner a(SmallSpace(), 3), b(SmallSpace(), 3), c(SmallSpace(), 4);
  auto order = [](Tuner& t) {
    std::vector<int64_t> out;
    for (const Trial& trial : t.Tune({8, 3, -1}, Measure).history) {
      out.push_back(trial.config.index());
    }
    return out;
  };
  std::vector<int64_t> first = order(a);
  EXPECT_EQ(first, order(b));
  EXPECT_NE(first, order(c));
}

TEST(TunerTest, GridWalksIndicesInOrderAndResumesPastHistory) {
  GridTuner tuner(SmallSpace());
  tuner.LoadHistory({{SmallSpace().Get(1), Measure({SmallSpace().Get(1)})[0]}});
  TuneResult r = tuner.Tune({5, 2, -1}, Measure);
  std::vector<int64_t> order;
  for (const Trial& t : r.history) order.push_back(t.config.index());
  EXPECT_EQ(order, (std::vector<int64_t>{0, 2, 3, 4, 5}));
}

TEST(TunerTest, ConfigsToMeasureFirstLeadTheFirstBatchOnceEach) {
  space::ConfigSpace s = SmallSpace();
  GridTuner tuner(s);
  tuner.LoadHistory({{s.Get(9), Measure({s.Get(9)})[0]}});
  tuner.MeasureFirst({s.Get(7), s.Get(9), s.Get(7), s.Get(12)});  // 9 was measured already
  TuneResult r = tuner.Tune({5, 2, -1}, Measure);
  std::vector<int64_t> order;
  for (const Trial& t : r.history) order.push_back(t.config.index());
  EXPECT_EQ(order, (std::vector<int64_t>{7, 12, 0, 1, 2}));
}

TEST(TunerTest, EarlyStoppingEndsARunWithoutProgress) {
  // Every config costs the same: only the first trial is an improvement.
  MeasureBatchFn flat = [](const std::vector<space::ConfigEntity>& batch) {
    return std::vector<MeasureOutcome>(batch.size(), MeasureOutcome{2.0, tuning::OK, "", {}, 0});
  };
  testing::SyntheticDense dense;
  RandomTuner tuner(dense.Space(), 1);
  TuneResult r = tuner.Tune({1000, 8, 20}, flat);
  EXPECT_TRUE(r.stopped_early);
  EXPECT_EQ(r.best_trial, 1);
  EXPECT_EQ(r.trials, 24);  // batches of 8 until 20 trials passed without a new best
}

TEST(TunerTest, HistoryCountsForTheBest) {
  RandomTuner tuner(SmallSpace(), 1);
  space::ConfigEntity best = SmallSpace().FromValues({{"tile", {-1, 4}}, {"unroll", {4}}});
  tuner.LoadHistory({{best, Measure({best})[0]}});
  TuneResult r = tuner.Tune({3, 3, -1}, Measure);
  EXPECT_EQ(r.best_trial, 0);
  EXPECT_EQ(r.best->config, best);
  EXPECT_EQ(tuner.unvisited(), 15 - 4);
}

TEST(TunerTest, BadOptionsAndBadMeasureFunctionsAreUserErrors) {
  RandomTuner tuner(SmallSpace(), 1);
  try {
    tuner.Tune({10, 0, -1}, Measure);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("tune: the batch size must be at least 1, got 0"));
  }
  EXPECT_THROW(tuner.Tune({-1, 4, -1}, Measure), UserError);
  EXPECT_THROW(tuner.Tune({10, 4, 0}, Measure), UserError);
  MeasureBatchFn short_measure = [](const std::vector<space::ConfigEntity>& batch) {
    return std::vector<MeasureOutcome>(batch.size() - 1);
  };
  try {
    tuner.Tune({10, 4, -1}, short_measure);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(),
                HasSubstr("tune: the measure function returned 3 outcomes for 4 candidates"));
  }
}

}  // namespace
}  // namespace tuner
}  // namespace tessera
