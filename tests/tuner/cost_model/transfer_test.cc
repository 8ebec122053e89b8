#include "tuner/cost_model/transfer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>

#include "compiler/space/mutation.h"
#include "compiler/support/error.h"
#include "tests/tuner/testing/synthetic_dense.h"
#include "tuner/cost_model/knob_features.h"
#include "tuner/cost_model/ranking_metrics.h"

namespace tessera {
namespace tuner {
namespace {

constexpr const char* kTarget = "llvm -mcpu=znver3";

std::string TempDb(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string path = std::string(dir ? dir : "/tmp") + "/" + name;
  std::remove(path.c_str());
  std::remove((path + "-wal").c_str());
  std::remove((path + "-shm").c_str());
  return path;
}

void AddHistory(records::TuningLog* log, const testing::SyntheticDense& dense, int count,
                uint64_t seed, const std::string& target = kTarget) {
  space::ConfigSpace s = dense.Space();
  std::mt19937_64 rng(seed);
  std::vector<tuning::MeasureRecord> records;
  for (int i = 0; i < count; ++i)
    records.push_back(dense.Record(space::RandomConfig(s, rng), target));
  log->AppendBatch(records);
}

int64_t Width(const testing::SyntheticDense& dense) {
  return static_cast<int64_t>(CandidateFeatures(dense.Space().Get(0), dense.WorkloadKey()).size());
}

double Accuracy(const XGBoostCostModel& model, const testing::SyntheticDense& dense,
                uint64_t seed) {
  space::ConfigSpace s = dense.Space();
  std::mt19937_64 rng(seed);
  FeatureMatrix rows;
  std::vector<double> costs;
  while (rows.rows() < 200) {
    space::ConfigEntity c = space::RandomConfig(s, rng);
    if (!std::isfinite(dense.Cost(c))) continue;
    rows.AddRow(CandidateFeatures(c, dense.WorkloadKey()));
    costs.push_back(dense.Cost(c));
  }
  return PairwiseRankingAccuracy(model.Predict(rows), costs);
}

TEST(TransferTest, HistoryIsGroupedByWorkloadAndSkipsTheTaskItself) {
  auto log = records::TuningLog::Open(TempDb("history.db"));
  testing::SyntheticDense a{256, 256, 256}, b{512, 128, 256}, task{1024, 1024, 1024};
  AddHistory(log.get(), a, 30, 1);
  AddHistory(log.get(), b, 20, 2);
  AddHistory(log.get(), task, 10, 3);
  tuning::MeasureRecord broken = a.Record(a.Space().Get(0), kTarget);
  broken.clear_config();
  broken.set_config_json("{not json");  // an old record whose config cannot be read
  log->Append(broken);
  TrainingSet set = HistoryTrainingSet(log->List({}), task.WorkloadKey(), Width(task));
  EXPECT_EQ(set.features.rows(), 50);
  EXPECT_EQ(set.group_sizes, (std::vector<unsigned>{30, 20}));
  EXPECT_EQ(set.workloads, (std::vector<std::string>{a.WorkloadKey(), b.WorkloadKey()}));
  EXPECT_EQ(HistoryTrainingSet(log->List({}), task.WorkloadKey(), 3).features.rows(), 0);
}

// A workload timed warm and with cold weights gives two ranking groups: their costs are not
// comparable with each other, only within each condition.
TEST(TransferTest, HistoryGroupsAWorkloadsColdRecordsApart) {
  testing::SyntheticDense a{256, 256, 256}, task{1024, 1024, 1024};
  std::vector<tuning::MeasureRecord> records;
  for (int i = 0; i < 12; ++i) {
    tuning::MeasureRecord r = a.Record(a.Space().Get(i), kTarget);
    r.set_cold_weights(i % 3 == 0);
    records.push_back(r);
  }
  TrainingSet set = HistoryTrainingSet(records, task.WorkloadKey(), Width(task));
  EXPECT_EQ(set.features.rows(), 12);
  EXPECT_EQ(set.group_sizes, (std::vector<unsigned>{8, 4}));
  EXPECT_EQ(set.workloads, (std::vector<std::string>{a.WorkloadKey(), a.WorkloadKey() + " cold"}));
}

// Records of another template version measured other code: with the task's version given,
// transfer leaves them out (records without a version count as version 1).
TEST(TransferTest, HistoryKeepsOnlyTheTemplatesVersion) {
  auto log = records::TuningLog::Open(TempDb("versions.db"));
  testing::SyntheticDense a{256, 256, 256}, b{512, 128, 256}, task{1024, 1024, 1024};
  AddHistory(log.get(), a, 30, 1);  // version 1 (none written)
  for (int i = 0; i < 20; ++i) {
    tuning::MeasureRecord r = b.Record(b.Space().Get(i), kTarget);
    r.set_template_version(2);
    log->Append(r);
  }
  const std::vector<tuning::MeasureRecord> all = log->List({});
  EXPECT_EQ(HistoryTrainingSet(all, task.WorkloadKey(), Width(task)).features.rows(), 50);
  TrainingSet v2 = HistoryTrainingSet(all, task.WorkloadKey(), Width(task), 2);
  EXPECT_EQ(v2.features.rows(), 20);
  EXPECT_EQ(v2.workloads, std::vector<std::string>{b.WorkloadKey()});
  EXPECT_EQ(HistoryTrainingSet(all, task.WorkloadKey(), Width(task), 1).features.rows(), 30);
}

TEST(TransferTest, PretrainingNeedsEnoughRecordsOfTheSameTemplateAndTarget) {
  auto log = records::TuningLog::Open(TempDb("few.db"));
  testing::SyntheticDense other{256, 256, 256}, task{512, 512, 512};
  AddHistory(log.get(), other, 40, 1);
  AddHistory(log.get(), other, 400, 2, "llvm -mcpu=skylake");  // another CPU: never used
  EXPECT_EQ(PretrainFromLog(*log, task.WorkloadKey(), kTarget, Width(task), {}, 64), nullptr);
  EXPECT_NE(PretrainFromLog(*log, task.WorkloadKey(), kTarget, Width(task), {}, 32), nullptr);
}

TEST(TransferTest, ABaseModelFromOtherShapesRanksANewShape) {
  auto log = records::TuningLog::Open(TempDb("transfer.db"));
  for (auto shape : {testing::SyntheticDense{256, 256, 256}, testing::SyntheticDense{512, 256, 128},
                     testing::SyntheticDense{128, 512, 512}}) {
    AddHistory(log.get(), shape, 200, shape.m + shape.n);
  }
  testing::SyntheticDense task{1024, 1024, 1024};
  auto base = PretrainFromLog(*log, task.WorkloadKey(), kTarget, Width(task), {}, 64);
  ASSERT_NE(base, nullptr);
  XGBoostOptions quick_fade;
  quick_fade.base_half_life = 64;
  XGBoostCostModel model(quick_fade);
  model.SetBaseModel(base);
  // Before any measurement of the task, the prior alone already ranks it well.
  EXPECT_GE(Accuracy(model, task, 9), 0.8);

  // A few measurements of the task: the discounted prior helps the model that has it.
  space::ConfigSpace s = task.Space();
  std::mt19937_64 rng(5);
  FeatureMatrix rows;
  std::vector<double> costs;
  for (int i = 0; i < 16; ++i) {
    space::ConfigEntity c = space::RandomConfig(s, rng);
    rows.AddRow(CandidateFeatures(c, task.WorkloadKey()));
    costs.push_back(task.Cost(c));
  }
  model.Fit(rows, costs);
  EXPECT_TRUE(model.has_base_model());
  EXPECT_NEAR(model.base_discount(), std::pow(2.0, -16.0 / 64), 1e-12);
  XGBoostCostModel alone;
  alone.Fit(rows, costs);
  EXPECT_GT(Accuracy(model, task, 9), Accuracy(alone, task, 9));

  // Once the task has enough data of its own, the prior is dropped.
  for (int i = 0; i < 300; ++i) {
    space::ConfigEntity c = space::RandomConfig(s, rng);
    rows.AddRow(CandidateFeatures(c, task.WorkloadKey()));
    costs.push_back(task.Cost(c));
  }
  model.Fit(rows, costs);
  EXPECT_FALSE(model.has_base_model());
}

TEST(TransferTest, HistoryCostsAreTheFastestRepeat) {
  testing::SyntheticDense a{256, 256, 256}, task{512, 512, 512};
  tuning::MeasureRecord steady = a.Record(a.Space().Get(0), kTarget);
  steady.clear_costs();
  steady.add_costs(2e-3);
  steady.add_costs(2e-3);
  tuning::MeasureRecord disturbed = a.Record(a.Space().Get(1), kTarget);
  disturbed.clear_costs();
  disturbed.add_costs(1e-3);
  disturbed.add_costs(9e-3);  // mean 5e-3: slower than `steady` by the mean, faster at best
  tuning::MeasureRecord failed = disturbed;
  failed.set_error_kind(tuning::RUNTIME_ERROR);
  EXPECT_EQ(BestRepeatCost(steady), 2e-3);
  EXPECT_EQ(BestRepeatCost(disturbed), 1e-3);
  EXPECT_TRUE(std::isinf(BestRepeatCost(failed)));
  TrainingSet set = HistoryTrainingSet({steady, disturbed}, task.WorkloadKey(), Width(task));
  EXPECT_EQ(set.costs, (std::vector<double>{2e-3, 1e-3}));
}

TEST(TransferTest, TheBaseModelFadesWithTheConfiguredHalfLife) {
  auto log = records::TuningLog::Open(TempDb("half_life.db"));
  testing::SyntheticDense other{256, 256, 256}, task{512, 512, 512};
  AddHistory(log.get(), other, 100, 1);
  auto base = PretrainFromLog(*log, task.WorkloadKey(), kTarget, Width(task), {}, 64);
  ASSERT_NE(base, nullptr);
  space::ConfigSpace s = task.Space();
  std::mt19937_64 rng(3);
  FeatureMatrix rows;
  std::vector<double> costs;
  for (int i = 0; i < 32; ++i) {
    space::ConfigEntity c = space::RandomConfig(s, rng);
    rows.AddRow(CandidateFeatures(c, task.WorkloadKey()));
    costs.push_back(task.Cost(c));
  }
  XGBoostCostModel by_default;
  by_default.SetBaseModel(base);
  by_default.Fit(rows, costs);
  EXPECT_NEAR(by_default.base_discount(), std::pow(2.0, -32.0 / 256), 1e-12);
  XGBoostOptions fast;
  fast.base_half_life = 8;  // 32 rows: 1/16 left
  XGBoostCostModel faded(fast);
  faded.SetBaseModel(base);
  faded.Fit(rows, costs);
  EXPECT_NEAR(faded.base_discount(), 1.0 / 16, 1e-12);
  EXPECT_TRUE(faded.has_base_model());
  fast.base_half_life = 4;  // 1/256 left: below 0.05, dropped
  XGBoostCostModel dropped(fast);
  dropped.SetBaseModel(base);
  dropped.Fit(rows, costs);
  EXPECT_FALSE(dropped.has_base_model());
}

TEST(TransferTest, FeatureMatricesAppendRowsOfTheSameWidth) {
  FeatureMatrix a, b, empty;
  a.AddRow({1.f, 2.f});
  b.AddRow({3.f, 4.f});
  b.AddRow({5.f, 6.f});
  a.Append(b);
  a.Append(empty);
  EXPECT_EQ(a.rows(), 3);
  EXPECT_EQ(a.data(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  empty.Append(b);
  EXPECT_EQ(empty.cols(), 2);
  FeatureMatrix wide;
  wide.AddRow({1.f, 2.f, 3.f});
  try {
    a.Append(wide);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("cannot append rows of 3 features to rows of 2"));
  }
}

// History (many rows) says small x is fast; the task's own few rows say large x is.
TEST(TransferTest, AJointFitFollowsTheTasksOwnRowsOverALargerHistory) {
  TrainingSet history;
  for (int group = 0; group < 4; ++group) {
    for (int x = 0; x < 20; ++x) {
      history.features.AddRow({static_cast<float>(x), 1.f});
      history.costs.push_back(1.0 + x);
    }
    history.group_sizes.push_back(20);
  }
  FeatureMatrix own;
  std::vector<double> own_costs;
  for (int x = 0; x < 20; x += 2) {
    own.AddRow({static_cast<float>(x), 1.f});
    own_costs.push_back(21.0 - x);
  }
  FeatureMatrix probe;
  probe.AddRow({4.f, 1.f});  // where both disagree
  probe.AddRow({14.f, 1.f});

  XGBoostCostModel joint;
  FitWithHistory(joint, history, own, own_costs, /*own_share=*/4);
  std::vector<double> scores = joint.Predict(probe);
  EXPECT_LT(scores[0], scores[1]) << "the own rows count 4 times as much as the whole history";

  XGBoostCostModel one_of_many;
  FitWithHistory(one_of_many, history, own, own_costs, /*own_share=*/0);
  scores = one_of_many.Predict(probe);
  EXPECT_GT(scores[0], scores[1]) << "as one group among five, the history outvotes them";

  XGBoostCostModel no_history, alone;
  FitWithHistory(no_history, TrainingSet{}, own, own_costs);
  alone.Fit(own, own_costs);
  EXPECT_EQ(no_history.Predict(probe), alone.Predict(probe));
}

}  // namespace
}  // namespace tuner
}  // namespace tessera
