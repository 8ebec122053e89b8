#include "tuner/tune/tune_task.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>

#include "compiler/space/config_proto.h"
#include "compiler/space/mutation.h"
#include "compiler/support/error.h"
#include "tuner/cost_model/loop_nest_features.h"
#include "tuner/tune/tune_model.h"

namespace tessera {
namespace tuner {
namespace {

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string path = std::string(dir ? dir : "/tmp") + "/" + name;
  std::remove(path.c_str());
  return path;
}

std::string WorkDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir ? dir : "/tmp";
}

TuneTaskOptions SmallRun(const std::string& tuner, int64_t trials) {
  TuneTaskOptions options;
  options.tuner = tuner;
  options.trials = trials;
  options.batch_size = 4;
  options.measure.build_parallel = 2;
  options.measure.work_dir = WorkDir();
  options.run.number = 2;
  options.run.repeat = 2;
  return options;
}

TEST(TuneTaskTest, CandidatesBuildRunAndMatchTheReference) {
  for (const char* target : {"llvm", "c"}) {
    task::Task task("dense.x86(16,32,8,float32)", target);
    LocalMeasurer measurer(TaskBuildFn(task), TaskRunFn(task, {}), {2, 60, 30, true, WorkDir()});
    std::mt19937_64 rng(3);
    std::vector<space::ConfigEntity> batch = {task.config_space().Fallback(),
                                              space::RandomConfig(task.config_space(), rng),
                                              space::RandomConfig(task.config_space(), rng)};
    for (const MeasureOutcome& o : measurer.Measure(batch)) {
      EXPECT_TRUE(o.ok()) << target << ": " << tuning::ErrorKind_Name(o.error) << " " << o.message;
      EXPECT_EQ(o.costs.size(), 3u);
    }
  }
}

TEST(TuneTaskTest, Conv2dCandidatesBuildRunAndMatchTheReference) {
  task::Task task("conv2d_NCHWc.x86(1,8,6,6,8,3,3,1,1,float32)", "llvm");
  LocalMeasurer measurer(TaskBuildFn(task), TaskRunFn(task, {}), {2, 60, 30, true, WorkDir()});
  std::mt19937_64 rng(4);
  std::vector<space::ConfigEntity> batch = {task.config_space().Fallback(),
                                            space::RandomConfig(task.config_space(), rng)};
  for (const MeasureOutcome& o : measurer.Measure(batch)) {
    EXPECT_TRUE(o.ok()) << tuning::ErrorKind_Name(o.error) << " " << o.message;
  }
}

TEST(TuneTaskTest, EveryTemplateMeasuresCorrectlyThroughTheTaskFunctions) {
  for (const char* key :
       {"batch_matmul.x86(2,8,16,8,float32)", "depthwise_conv2d.x86(1,4,6,6,3,3,1,1,float32)",
        "depthwise_conv2d_NCHWc.x86(1,8,6,6,3,3,2,1,float32)"}) {
    task::Task task(key, "llvm");
    LocalMeasurer measurer(TaskBuildFn(task), TaskRunFn(task, {}), {2, 60, 30, true, WorkDir()});
    std::mt19937_64 rng(5);
    for (const MeasureOutcome& o : measurer.Measure(
             {task.config_space().Fallback(), space::RandomConfig(task.config_space(), rng)})) {
      EXPECT_TRUE(o.ok()) << key << ": " << tuning::ErrorKind_Name(o.error) << " " << o.message;
    }
  }
}

TEST(TuneTaskTest, RunsAppendToTheLogAndResumeWithoutRepeats) {
  auto log = records::TuningLog::Open(TempPath("tune.db"));
  task::Task task("dense.x86(16,32,8,float32)", "llvm");
  int64_t batches = 0;
  TuneTaskResult first = TuneTask(task, log.get(), SmallRun("random", 8),
                                  [&](const TuneProgress&, const auto&) { ++batches; });
  EXPECT_EQ(batches, 2);
  EXPECT_EQ(first.resumed, 0);
  EXPECT_EQ(first.search.trials, 8);
  EXPECT_EQ(first.search.failures, 0);
  // The fallback leads, so the best record is never slower than an untuned build's config.
  EXPECT_EQ(first.search.history[0].config, task.config_space().Fallback());
  ASSERT_TRUE(first.search.best.has_value());
  EXPECT_EQ(log->Count(), 8);
  auto best = log->Best(task.workload_key(), "llvm");
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->tuner_version(), kTunerVersion);
  EXPECT_EQ(best->template_version(), task.templ().version);
  EXPECT_EQ(best->device_key(), "local");
  EXPECT_DOUBLE_EQ(records::MeanCost(*best), first.search.best->outcome.cost);
  EXPECT_EQ(space::ConfigFromProto(task.config_space(), best->config()), first.search.best->config);

  TuneTaskResult second = TuneTask(task, log.get(), SmallRun("random", 8));
  EXPECT_EQ(second.resumed, 8);
  for (const Trial& t : second.search.history) {
    EXPECT_FALSE(t.config == task.config_space().Fallback());  // measured in the first run
  }
  EXPECT_EQ(log->Count(), 16);
  EXPECT_EQ(log->MeasuredConfigs(task.workload_key(), "llvm").size(), 16u);
  EXPECT_LE(second.search.best->outcome.cost, first.search.best->outcome.cost);
  // The same CPU string only: another target starts from scratch.
  EXPECT_FALSE(log->Best(task.workload_key(), "llvm -mcpu=skylake").has_value());
}

TEST(TuneTaskTest, XgbTransfersFromOtherShapesInTheLog) {
  auto log = records::TuningLog::Open(TempPath("transfer.db"));
  task::Task other("dense.x86(32,32,16,float32)", "c");
  TuneTaskOptions seed = SmallRun("random", 12);
  TuneTask(other, log.get(), seed);
  task::Task task("dense.x86(16,32,8,float32)", "c");
  TuneTaskOptions options = SmallRun("xgb", 4);
  options.transfer_min_records = 10;
  TuneTaskResult r = TuneTask(task, log.get(), options);
  EXPECT_TRUE(r.transferred);
  EXPECT_EQ(r.search.trials, 4);
  options.transfer = false;
  EXPECT_FALSE(TuneTask(task, log.get(), options).transferred);
  // Too few records of other shapes: the task learns from its own trials only.
  options.transfer = true;
  options.transfer_min_records = 64;
  EXPECT_FALSE(
      TuneTask(task::Task("dense.x86(8,16,8,float32)", "c"), log.get(), options).transferred);
}

// A model tuned for several batch buckets: the larger bucket's kernel waits for the smaller
// one's first trials, then measures the smaller one's best configurations, nothing else: no
// search of its own.
TEST(TuneModelTest, ALargerBucketMeasuresTheSmallerBucketsBest) {
  auto log = records::TuningLog::Open(TempPath("buckets.db"));
  ModelTask small{"dense.x86(16,32,8,float32)", 1, 2.0 * 16 * 32 * 8};
  ModelTask large{"dense.x86(64,32,8,float32)", 1, 2.0 * 64 * 32 * 8};
  large.smaller_bucket = small.workload_key;
  TuneModelOptions options;
  options.trials = 24;
  options.task = SmallRun("random", 0);
  std::vector<int> order;
  TuneModelResult result = TuneModel({small, large}, "llvm", log.get(), options,
                                     [&](const TuneModelProgress& p) { order.push_back(p.task); });
  ASSERT_EQ(result.tasks.size(), 2u);
  ASSERT_GE(order.size(), 5u);
  // schedule.min_trials of the small one before the large one may start
  EXPECT_EQ(std::vector<int>(order.begin(), order.begin() + 5), (std::vector<int>{0, 0, 0, 0, 1}));

  records::RecordFilter filter;
  filter.target = "llvm";
  filter.workload_key = small.workload_key;
  std::vector<tuning::MeasureRecord> small_records = log->List(filter);
  std::vector<tuning::MeasureRecord> first16(small_records.begin(), small_records.begin() + 16);
  std::stable_sort(first16.begin(), first16.end(), [](const auto& a, const auto& b) {
    return records::MeanCost(a) < records::MeanCost(b);
  });
  filter.workload_key = large.workload_key;
  std::vector<tuning::MeasureRecord> large_records = log->List(filter);
  task::Task large_task(large.workload_key, "llvm");
  const space::ConfigSpace& space = large_task.config_space();
  // Its first batch: the small one's best two as they were after 16 trials.
  ASSERT_GE(large_records.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(space::ConfigFromProto(space, large_records[i].config()),
              space::ConfigFromProto(space, first16[i].config()))
        << i;
  }
  // Every configuration it measured is one the small one measured.
  std::set<int64_t> small_configs;
  for (const auto& r : small_records) {
    small_configs.insert(space::ConfigFromProto(space, r.config()).index());
  }
  for (const auto& r : large_records) {
    EXPECT_TRUE(small_configs.count(space::ConfigFromProto(space, r.config()).index()));
  }
  EXPECT_EQ(result.tasks[0].trials + result.tasks[1].trials, 24);
}

TEST(TuneTaskTest, LoopNestFeaturesHaveOneWidthAndTellSchedulesApart) {
  task::Task task("dense.x86(64,64,32,float32)", "llvm");
  FeatureFn loop = TaskFeatureFn(task, "loop");
  FeatureFn knob = TaskFeatureFn(task, "knob");
  const auto& s = task.config_space();
  std::vector<float> a = loop(s.Get(0)), b = loop(s.Get(s.size() - 1));
  EXPECT_EQ(a.size(), b.size());
  EXPECT_EQ(a.size(), knob(s.Get(0)).size() + LoopNestFeatureCount());
  EXPECT_NE(a, b);
  EXPECT_THROW(TaskFeatureFn(task, "curve"), UserError);
  auto log = records::TuningLog::Open(TempPath("loop.db"));
  TuneTaskOptions options = SmallRun("xgb", 4);
  options.features = "loop";
  EXPECT_EQ(TuneTask(task, log.get(), options).search.trials, 4);
}

// A thread count in the target keys the records; fleet devices cannot be told one.
TEST(TuneTaskTest, ThreadCountIsPartOfTheRecordsTarget) {
  auto log = records::TuningLog::Open(TempPath("threads.db"));
  task::Task task("dense.x86(16,32,8,float32)", "llvm -num-threads=1");
  TuneTaskResult result = TuneTask(task, log.get(), SmallRun("random", 4));
  EXPECT_EQ(result.search.failures, 0);
  EXPECT_TRUE(log->Best(task.workload_key(), "llvm -num-threads=1").has_value());
  EXPECT_FALSE(log->Best(task.workload_key(), "llvm").has_value());

  TuneTaskOptions remote = SmallRun("random", 4);
  remote.rpc_tracker = "127.0.0.1:1";
  remote.rpc_key = "cpu";
  try {
    TuneTask(task, log.get(), remote);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("-num-threads is measured on this machine only"));
  }
}

// Cold weights leave the CPU caches: a GPU target's kernels cannot be timed so, and records
// claiming it would lie.
TEST(TuneTaskTest, ColdWeightsOnAGPUTargetAreAUserError) {
  auto log = records::TuningLog::Open(TempPath("cold_gpu.db"));
  task::Task task("dense.cuda(16,32,8,float32)", "cuda -arch=sm_80");
  TuneTaskOptions cold = SmallRun("random", 4);
  cold.run.cold_weights = true;
  try {
    TuneTask(task, log.get(), cold);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("cold weights are for CPU targets"));
  }
  EXPECT_EQ(log->Count(), 0);
}

TEST(TuneTaskTest, UnknownTunerIsAUserError) {
  auto log = records::TuningLog::Open(TempPath("bad.db"));
  task::Task task("dense.x86(16,32,8,float32)", "llvm");
  try {
    TuneTask(task, log.get(), SmallRun("annealing", 4));
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr(
                              "unknown tuner 'annealing' (expected xgb, ga, random or grid)"));
  }
}

}  // namespace
}  // namespace tuner
}  // namespace tessera
