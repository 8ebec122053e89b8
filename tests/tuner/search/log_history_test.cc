#include "tuner/search/log_history.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <set>

#include "compiler/space/config_proto.h"
#include "tests/tuner/testing/measure.h"
#include "tuner/search/random_tuner.h"

namespace tessera {
namespace tuner {
namespace {

constexpr const char* kTarget = "llvm -mcpu=znver3";

std::string TempDb(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string path = std::string(dir ? dir : "/tmp") + "/" + name;
  std::remove(path.c_str());
  return path;
}

// Runs `trials` random trials and appends them to the log, as the tuning loop does.
TuneResult TuneIntoLog(records::TuningLog* log, const testing::SyntheticDense& dense,
                       int64_t trials, uint64_t seed, std::vector<int64_t>* measured) {
  RandomTuner tuner(dense.Space(), seed);
  tuner.LoadHistory(TrialsFromLog(*log, dense.WorkloadKey(), kTarget, dense.Space()).trials);
  return tuner.Tune(
      {trials, 16, -1}, testing::SyntheticMeasure(dense, measured),
      [&](const TuneProgress&, const std::vector<Trial>& batch) {
        std::vector<tuning::MeasureRecord> records;
        for (const Trial& t : batch) {
          records.push_back(RecordOfTrial(t, dense.WorkloadKey(), kTarget, "local", "test"));
        }
        log->AppendBatch(records);
      });
}

TEST(LogHistoryTest, ResumedRunsNeverMeasureAConfigTwice) {
  auto log = records::TuningLog::Open(TempDb("resume.db"));
  testing::SyntheticDense dense{128, 256, 64};
  std::vector<int64_t> measured;
  TuneResult first = TuneIntoLog(log.get(), dense, 100, 1, &measured);
  // The same seed would retrace the first run's steps if the log were ignored.
  TuneResult second = TuneIntoLog(log.get(), dense, 100, 1, &measured);
  EXPECT_EQ(first.trials + second.trials, 200);
  EXPECT_EQ(std::set<int64_t>(measured.begin(), measured.end()).size(), 200u);
  EXPECT_EQ(log->Count(), 200);
  EXPECT_EQ(log->MeasuredConfigs(dense.WorkloadKey(), kTarget).size(), 200u);
  ASSERT_TRUE(second.best.has_value());
  EXPECT_LE(second.best->outcome.cost, first.best->outcome.cost);
}

TEST(LogHistoryTest, RecordsRoundTripIntoTrials) {
  auto log = records::TuningLog::Open(TempDb("roundtrip.db"));
  testing::SyntheticDense dense{64, 64, 64};
  space::ConfigSpace s = dense.Space();
  Trial ok{s.Get(5), {}};
  ok.outcome.cost = 2.0;
  ok.outcome.costs = {1.0, 3.0};
  Trial failed{s.Get(9), {}};
  failed.outcome.error = tuning::TIMEOUT;
  failed.outcome.message = "ran past 10 s";
  log->Append(RecordOfTrial(ok, dense.WorkloadKey(), kTarget, "local", "test"));
  log->Append(RecordOfTrial(failed, dense.WorkloadKey(), kTarget, "local", "test"));
  tuning::MeasureRecord foreign = RecordOfTrial(ok, dense.WorkloadKey(), kTarget, "local", "t");
  foreign.set_config_json("{\"entity\":[[\"tile_q\",\"sp\",[-1,2]]]}");
  log->Append(foreign);
  log->Append(RecordOfTrial(ok, dense.WorkloadKey(), "llvm -mcpu=skylake", "local", "test"));

  LoadedHistory h = TrialsFromLog(*log, dense.WorkloadKey(), kTarget, s);
  EXPECT_EQ(h.skipped, 1);
  ASSERT_EQ(h.trials.size(), 2u);
  EXPECT_EQ(h.trials[0].config, s.Get(5));
  EXPECT_DOUBLE_EQ(h.trials[0].outcome.cost, 2.0);
  EXPECT_EQ(h.trials[0].outcome.costs, (std::vector<double>{1.0, 3.0}));
  EXPECT_EQ(h.trials[1].outcome.error, tuning::TIMEOUT);
  EXPECT_EQ(h.trials[1].outcome.message, "ran past 10 s");
  EXPECT_FALSE(h.trials[1].outcome.ok());
  // A search of another template version resumes from none of these (version 1, as every record
  // without a version); one of version 1 from both.
  EXPECT_EQ(TrialsFromLog(*log, dense.WorkloadKey(), kTarget, s, 1).trials.size(), 2u);
  LoadedHistory newer = TrialsFromLog(*log, dense.WorkloadKey(), kTarget, s, 2);
  EXPECT_TRUE(newer.trials.empty());
  EXPECT_EQ(newer.skipped, 3);
  auto best = log->Best(dense.WorkloadKey(), kTarget);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(space::ConfigFromProto(s, best->config()), s.Get(5));
}

// A search timed with cold weights resumes from records timed so, and the log's best is one of
// them however fast a warm record of the workload was.
TEST(LogHistoryTest, ColdWeightRecordsAreTheirOwnHistoryAndTheBest) {
  auto log = records::TuningLog::Open(TempDb("cold.db"));
  testing::SyntheticDense dense{64, 64, 64};
  space::ConfigSpace s = dense.Space();
  Trial warm{s.Get(3), {}};
  warm.outcome.cost = 1.0;
  Trial cold{s.Get(7), {}};
  cold.outcome.cost = 4.0;
  log->Append(RecordOfTrial(warm, dense.WorkloadKey(), kTarget, "local", "test"));
  tuning::MeasureRecord cold_record =
      RecordOfTrial(cold, dense.WorkloadKey(), kTarget, "local", "test");
  cold_record.set_cold_weights(true);
  log->Append(cold_record);

  LoadedHistory only_cold = TrialsFromLog(*log, dense.WorkloadKey(), kTarget, s, 0, true);
  ASSERT_EQ(only_cold.trials.size(), 1u);
  EXPECT_EQ(only_cold.trials[0].config, s.Get(7));
  EXPECT_EQ(only_cold.skipped, 1);
  LoadedHistory only_warm = TrialsFromLog(*log, dense.WorkloadKey(), kTarget, s, 0, false);
  ASSERT_EQ(only_warm.trials.size(), 1u);
  EXPECT_EQ(only_warm.trials[0].config, s.Get(3));
  EXPECT_EQ(TrialsFromLog(*log, dense.WorkloadKey(), kTarget, s).trials.size(), 2u);

  auto best = log->Best(dense.WorkloadKey(), kTarget);
  ASSERT_TRUE(best.has_value());
  EXPECT_TRUE(best->cold_weights());
  EXPECT_EQ(space::ConfigFromProto(s, best->config()), s.Get(7));
  // Read back as written.
  std::vector<tuning::MeasureRecord> all = log->List({});
  ASSERT_EQ(all.size(), 2u);
  EXPECT_FALSE(all[0].cold_weights());
  EXPECT_TRUE(all[1].cold_weights());
}

}  // namespace
}  // namespace tuner
}  // namespace tessera
