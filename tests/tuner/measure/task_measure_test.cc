#include "tuner/measure/task_measure.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "tuner/measure/local_measurer.h"

namespace tessera {
namespace tuner {
namespace {

RunOptions Options(int number, int repeat, double budget_s) {
  RunOptions o;
  o.number = number;
  o.repeat = repeat;
  o.min_repeat_ms = 100;
  o.time_budget_s = budget_s;
  return o;
}

TEST(PlanTimingTest, FastCandidatesAreTimedAsAsked) {
  TimingPlan plan = PlanTiming(Options(10, 3, 1.0), 0.02);  // 0.6 s in all
  EXPECT_EQ(plan.number, 10);
  EXPECT_EQ(plan.repeat, 3);
  EXPECT_EQ(plan.min_repeat_ms, 100);
  EXPECT_FALSE(plan.first_call_only);
}

TEST(PlanTimingTest, SlowCandidatesGetFewerCallsPerRepeatFirst) {
  TimingPlan plan = PlanTiming(Options(10, 3, 1.0), 0.1);  // 3 s asked: 3 calls per repeat fit
  EXPECT_EQ(plan.number, 3);
  EXPECT_EQ(plan.repeat, 3);
  EXPECT_EQ(plan.min_repeat_ms, 0);
  EXPECT_FALSE(plan.first_call_only);
}

TEST(PlanTimingTest, VerySlowCandidatesGetFewerRepeats) {
  TimingPlan plan = PlanTiming(Options(10, 3, 1.0), 0.4);
  EXPECT_EQ(plan.number, 1);
  EXPECT_EQ(plan.repeat, 2);
  EXPECT_FALSE(plan.first_call_only);
}

TEST(PlanTimingTest, ACallLongerThanTheBudgetIsItsOwnTiming) {
  TimingPlan plan = PlanTiming(Options(10, 3, 1.0), 1.5);
  EXPECT_TRUE(plan.first_call_only);
}

TEST(PlanTimingTest, ZeroBudgetKeepsTheOptions) {
  TimingPlan plan = PlanTiming(Options(10, 3, 0), 100.0);
  EXPECT_EQ(plan.number, 10);
  EXPECT_EQ(plan.repeat, 3);
  EXPECT_FALSE(plan.first_call_only);
}

std::string WorkDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir ? dir : "/tmp";
}

// End to end: a budget no call fits in leaves one timing per candidate, still checked.
TEST(TaskRunFnTest, ATinyBudgetTimesEachCandidateOnce) {
  Task task("dense.x86(32,32,32,float32)", "llvm");
  RunOptions run = Options(5, 3, 1e-9);
  LocalMeasurer measurer(TaskBuildFn(task), TaskRunFn(task, run), {2, 60, 30, true, WorkDir()});
  for (const MeasureOutcome& o : measurer.Measure({task.config_space().Fallback()})) {
    ASSERT_TRUE(o.ok()) << o.message;
    EXPECT_EQ(o.costs.size(), 1u);
  }
  run.time_budget_s = 0;
  LocalMeasurer full(TaskBuildFn(task), TaskRunFn(task, run), {2, 60, 30, true, WorkDir()});
  for (const MeasureOutcome& o : full.Measure({task.config_space().Fallback()})) {
    ASSERT_TRUE(o.ok()) << o.message;
    EXPECT_EQ(o.costs.size(), 3u);
  }
}

}  // namespace
}  // namespace tuner
}  // namespace tessera
