// The scheduler's choices on synthetic tuning curves: no measurement, fully deterministic.
#include "tuner/tune/task_scheduler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <tuple>
#include <vector>

namespace tessera {
namespace tuner {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// `n` trials whose best falls from `start` by `factor` per trial.
std::vector<double> Curve(double start, double factor, int n) {
  std::vector<double> costs;
  for (int i = 0; i < n; ++i) costs.push_back(start * std::pow(factor, i));
  return costs;
}

TEST(TaskSchedulerTest, UnmeasuredTasksFirstLargestWorkFirst) {
  TaskScheduler s({{1, 1e6}, {2, 1e9}, {1, 5e8}});
  EXPECT_EQ(s.Next(), 1);  // weight × FLOPs: 2e9
  s.Record(1, {1e-3});
  EXPECT_EQ(s.Next(), 2);
  s.Record(2, {1e-3});
  EXPECT_EQ(s.Next(), 0);
  s.Record(0, {kInf});  // a failed trial is not a best: the task stays unmeasured
  EXPECT_EQ(s.Next(), 0);
  EXPECT_TRUE(std::isinf(s.Gain(0)));
}

// The same kernel in a larger batch bucket follows the smaller bucket's best: it waits for that
// task's first `min_trials` trials, which are as urgent as an unmeasured task's first, and comes
// after the unmeasured tasks that search, however much larger its work.
TEST(TaskSchedulerTest, ALargerBucketWaitsForTheKernelItFollows) {
  TaskSchedulerOptions o;
  ScheduledTask small{1, 1e8}, other{1, 1e7}, large{1, 16e8};
  large.seed_from = 0;
  TaskScheduler s({small, other, large}, o);
  EXPECT_EQ(s.Next(), 0);
  EXPECT_EQ(s.Gain(2), 0);  // waiting
  s.Record(0, Curve(1e-3, 0.99, 8), {0, 1, 2, 3, 4, 5, 6, 7});
  // The large one waits for it: as urgent as the unmeasured one, but after it.
  EXPECT_TRUE(std::isinf(s.Gain(0)));
  EXPECT_EQ(s.Next(), 1);
  s.Record(1, {1e-3});
  EXPECT_EQ(s.Next(), 0);
  EXPECT_EQ(s.Gain(2), 0);  // still waiting: its source has 8 of 16 trials
  s.Record(0, Curve(0.9e-3, 0.99, 8), {8, 9, 10, 11, 12, 13, 14, 15});
  EXPECT_TRUE(std::isinf(s.Gain(2)));
  EXPECT_FALSE(std::isinf(s.Gain(0)));
  EXPECT_EQ(s.Next(), 2);
}

// A follower is due again only when its source's best changed, and then expects its source's
// rate; it never stalls on its own (its own trials are its source's configurations).
TEST(TaskSchedulerTest, AFollowerIsDueWhenItsSourcesBestMoves) {
  TaskSchedulerOptions o;
  ScheduledTask small{1, 1e8}, large{1, 16e8};
  large.seed_from = 0;
  TaskScheduler s({small, large}, o);
  std::vector<int64_t> configs(32);
  for (int i = 0; i < 32; ++i) configs[i] = i;
  s.Record(0, Curve(1e-3, 0.999, 32), configs);  // about 1.6% over the last window
  s.Record(1, {16e-3, 15e-3});
  EXPECT_EQ(s.Gain(1), 0);  // it measured the source's best as it is
  EXPECT_EQ(s.Next(), 0);
  s.Record(0, {2e-3});  // no new best: still nothing to follow
  EXPECT_EQ(s.Gain(1), 0);
  s.Record(0, {0.5e-3}, {40});
  const double source_rate = s.Gain(0) / s.best(0);
  EXPECT_LT(source_rate, o.prior_rate);
  EXPECT_DOUBLE_EQ(s.Gain(1), 15e-3 * source_rate);
  s.Record(1, std::vector<double>(60, 15e-3));
  EXPECT_FALSE(s.stalled(1));
  // A source that is finished releases a follower that waits for it, whatever its trial count.
  TaskScheduler t({small, large}, o);
  t.Record(0, {1e-3}, {0});
  t.SetExhausted(0);
  EXPECT_EQ(t.Next(), 1);
}

// The model's stall is judged on the searched tasks alone: a follower's trials neither count
// in the window nor move the estimate it watches.
TEST(TaskSchedulerTest, FollowersDoNotCountTowardTheModelsStall) {
  TaskSchedulerOptions o;
  o.model_stall_trials = 4;
  o.model_stall_improvement = 0.01;
  ScheduledTask small{1, 1e8}, large{1, 16e8};
  large.seed_from = 0;
  TaskScheduler s({small, large}, o);
  s.Record(0, Curve(1e-3, 0.9, 8), {0, 1, 2, 3, 4, 5, 6, 7});
  s.Record(1, {16e-3});
  s.Record(0, {1e-3});                          // every task measured: the window starts here
  s.Record(1, std::vector<double>(20, 15e-3));  // no search of its own: not counted
  EXPECT_FALSE(s.model_stalled());
  s.Record(0, std::vector<double>(4, 1e-3));  // four searched trials without a new best
  EXPECT_TRUE(s.model_stalled());
  EXPECT_EQ(s.Next(), -1);
}

TEST(TaskSchedulerTest, LargestWeightTimesBestWins) {
  TaskSchedulerOptions o;
  TaskScheduler s({{1, 1}, {3, 1}, {1, 1}}, o);
  s.Record(0, {4e-3});
  s.Record(1, {2e-3});  // 3 × 2 ms = 6 ms of the model
  s.Record(2, {5e-3});
  EXPECT_EQ(s.Next(), 1);
  EXPECT_DOUBLE_EQ(s.Gain(1), 3 * 2e-3 * o.prior_rate);
  int measured = 0;
  EXPECT_DOUBLE_EQ(s.EstimatedLatency(&measured), 4e-3 + 6e-3 + 5e-3);
  EXPECT_EQ(measured, 3);
}

// A task with an alternative (a Winograd convolution for a direct one) counts once in the
// model's estimate, at the faster of the two.
TEST(TaskSchedulerTest, AnAlternativeCountsOnceAtTheFasterOfTheTwo) {
  TaskScheduler s({{2, 1}, {1, 1}, {2, 1, 0}});
  s.Record(0, {4e-3});
  s.Record(1, {1e-3});
  int measured = 0;
  EXPECT_DOUBLE_EQ(s.EstimatedLatency(&measured), 2 * 4e-3 + 1e-3);  // the alternative unmeasured
  EXPECT_EQ(measured, 2);
  s.Record(2, {3e-3});
  EXPECT_DOUBLE_EQ(s.EstimatedLatency(&measured), 2 * 3e-3 + 1e-3);
  EXPECT_EQ(measured, 3);
  s.Record(0, {2e-3});
  EXPECT_DOUBLE_EQ(s.EstimatedLatency(), 2 * 2e-3 + 1e-3);
}

// With the model build's rule (`ScheduledTask::replaces`), the alternative counts only where
// the build would run it, judged on its best trial's configuration.
TEST(TaskSchedulerTest, AnAlternativeCountsWhereTheRuleSaysTheModelRunsIt) {
  std::vector<std::tuple<double, double, int64_t>> asked;
  ScheduledTask alternative{2, 1, 0, {}};
  // Config 7 costs 1 ms more in a model, any other 0.1 ms.
  alternative.replaces = [&asked](double replaced_s, double best_s, int64_t config) {
    asked.emplace_back(replaced_s, best_s, config);
    return best_s + (config == 7 ? 1e-3 : 1e-4) < replaced_s;
  };
  TaskScheduler s({{2, 1}, {1, 1}, alternative});
  s.Record(0, {4e-3});
  s.Record(1, {1e-3});
  s.Record(2, {3.5e-3, 3.2e-3}, {5, 7});  // faster, but not by the rule
  EXPECT_DOUBLE_EQ(s.EstimatedLatency(), 2 * 4e-3 + 1e-3);
  ASSERT_FALSE(asked.empty());
  EXPECT_EQ(asked.back(), std::make_tuple(4e-3, 3.2e-3, int64_t{7}));
  s.Record(2, {3.3e-3, 3e-3}, {8, 9});  // 3e-3 of config 9: by the rule
  EXPECT_DOUBLE_EQ(s.EstimatedLatency(), 2 * 3e-3 + 1e-3);
  EXPECT_EQ(asked.back(), std::make_tuple(4e-3, 3e-3, int64_t{9}));
  s.Record(2, {3.5e-3});  // no better: the best's configuration stays
  EXPECT_EQ(asked.back(), std::make_tuple(4e-3, 3e-3, int64_t{9}));
  s.Record(0, {2e-3});  // the direct one wins again
  EXPECT_DOUBLE_EQ(s.EstimatedLatency(), 2 * 2e-3 + 1e-3);
  // A best without a configuration is asked about with -1.
  TaskScheduler unknown({{2, 1}, {1, 1}, alternative});
  unknown.Record(0, {4e-3});
  unknown.Record(2, {1e-3});
  EXPECT_DOUBLE_EQ(unknown.EstimatedLatency(), 2 * 1e-3);
  EXPECT_EQ(std::get<2>(asked.back()), -1);
}

TEST(TaskSchedulerTest, StillImprovingBeatsPlateauOfSameSize) {
  TaskSchedulerOptions o;
  o.min_trials = 8;
  o.window = 8;
  o.stall_trials = 1000;
  TaskScheduler s({{1, 1}, {1, 1}}, o);
  s.Record(0, Curve(1e-3, 1.0, 16));   // flat at 1 ms
  s.Record(1, Curve(2e-3, 0.97, 16));  // 1.26 ms, still falling 3% a trial
  EXPECT_EQ(s.Next(), 1);
  EXPECT_DOUBLE_EQ(s.Gain(0), 1e-3 * o.floor_rate);  // a plateau keeps the floor rate
  // A much heavier plateaued task outweighs a small improving one.
  TaskScheduler heavy({{100, 1}, {1, 1}}, o);
  heavy.Record(0, Curve(1e-3, 1.0, 16));
  heavy.Record(1, Curve(2e-3, 0.97, 16));
  EXPECT_EQ(heavy.Next(), 0);
}

TEST(TaskSchedulerTest, FewTrialsGetTheOptimisticPrior) {
  TaskSchedulerOptions o;
  o.min_trials = 16;
  o.window = 16;
  o.stall_trials = 1000;
  TaskScheduler s({{1, 1}, {1, 1}}, o);
  s.Record(0, Curve(1e-3, 0.99, 32));  // measured rate about 15% per window
  s.Record(1, {0.9e-3, 0.9e-3});       // smaller best, but only two trials: prior 50%
  EXPECT_EQ(s.Next(), 1);
  s.Record(1, Curve(0.9e-3, 1.0, 14));  // now 16 trials, flat
  EXPECT_EQ(s.Next(), 0);
}

TEST(TaskSchedulerTest, StalledAndExhaustedTasksStop) {
  TaskSchedulerOptions o;
  o.min_trials = 4;
  o.stall_trials = 8;
  o.stall_improvement = 0.01;
  TaskScheduler s({{1, 1}, {1, 1}}, o);
  s.Record(0, Curve(1e-3, 0.999, 12));  // 0.8% over the last 8: stalled
  EXPECT_TRUE(s.stalled(0));
  EXPECT_EQ(s.Gain(0), 0);
  s.Record(1, Curve(1e-3, 0.9, 12));
  EXPECT_FALSE(s.stalled(1));
  EXPECT_EQ(s.Next(), 1);
  s.SetExhausted(1);
  EXPECT_TRUE(s.finished(1));
  EXPECT_EQ(s.Next(), -1);
}

// The model stops when its estimate has stopped moving, though each task on its own would go on
// (every task still improves 0.02% per trial, above its own stall threshold of 0 here).
TEST(TaskSchedulerTest, TheModelStopsWhenItsEstimateStalls) {
  TaskSchedulerOptions o;
  o.stall_improvement = 0;
  o.model_stall_trials = 32;
  o.model_stall_improvement = 0.005;
  TaskScheduler s({{1, 1}, {2, 1}}, o);
  s.Record(0, Curve(1e-3, 0.98, 16));  // a task still unmeasured: no model estimate yet
  EXPECT_FALSE(s.model_stalled());
  s.Record(1, Curve(1e-3, 0.98, 16));
  EXPECT_FALSE(s.model_stalled());  // 2% a trial over the last 32
  EXPECT_GE(s.Next(), 0);
  const double c = 1e-3 * std::pow(0.98, 15);  // where both curves are now
  s.Record(0, Curve(c, 0.9998, 16));
  s.Record(1, Curve(c, 0.9998, 12));
  EXPECT_FALSE(s.model_stalled());  // the window still reaches back into the fast fall
  s.Record(1, Curve(c * std::pow(0.9998, 12), 0.9998, 4));
  EXPECT_TRUE(s.model_stalled());  // 0.3% over the last 32 trials
  EXPECT_FALSE(s.finished(0));
  EXPECT_EQ(s.Next(), -1);
  o.model_stall_trials = 0;  // off
  TaskScheduler off({{1, 1}}, o);
  off.Record(0, Curve(1e-3, 1.0, 200));
  EXPECT_FALSE(off.model_stalled());
}

TEST(TaskSchedulerTest, ResumedCurveGivesTheSameChoice) {
  // Recording a log's trials at once or batch by batch gives the same state.
  TaskScheduler whole({{2, 1}, {1, 1}});
  TaskScheduler batched({{2, 1}, {1, 1}});
  std::vector<double> a = Curve(3e-3, 0.95, 40), b = Curve(5e-3, 0.9, 24);
  whole.Record(0, a);
  whole.Record(1, b);
  for (size_t i = 0; i < a.size(); i += 8) {
    batched.Record(0, std::vector<double>(a.begin() + i, a.begin() + std::min(a.size(), i + 8)));
  }
  for (size_t i = 0; i < b.size(); i += 8) {
    batched.Record(1, std::vector<double>(b.begin() + i, b.begin() + std::min(b.size(), i + 8)));
  }
  EXPECT_EQ(whole.Next(), batched.Next());
  EXPECT_DOUBLE_EQ(whole.Gain(0), batched.Gain(0));
  EXPECT_DOUBLE_EQ(whole.Gain(1), batched.Gain(1));
  EXPECT_EQ(whole.trials(0), 40);
}

}  // namespace
}  // namespace tuner
}  // namespace tessera
