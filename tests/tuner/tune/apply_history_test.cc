#include "tuner/tune/apply_history.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "compiler/space/config_proto.h"
#include "compiler/support/error.h"
#include "records/tuning_log.h"
#include "tests/tuner/testing/log_records.h"

namespace tessera {
namespace tuner {
namespace {

using ::testing::HasSubstr;

using testing::FreshTempPath;
using testing::RecordOf;

TEST(ApplyHistoryTest, TheBestRecordOfTheExactTargetWins) {
  auto log = records::TuningLog::Open(FreshTempPath("best.db"));
  task::Task task("dense.x86(64,64,64,float32)", "llvm -mcpu=znver3");
  task::Task other_cpu("dense.x86(64,64,64,float32)", "llvm -mcpu=skylake");
  const auto& s = task.config_space();
  log->AppendBatch({RecordOf(task, s.Get(3), 2.0), RecordOf(task, s.Get(5), 1.0),
                    RecordOf(other_cpu, s.Get(7), 0.5)});
  std::ostringstream warnings;
  ChosenConfig chosen = ChooseConfig(task, log.get(), warnings);
  EXPECT_EQ(chosen.config, s.Get(5));
  ASSERT_TRUE(chosen.record.has_value());
  EXPECT_DOUBLE_EQ(chosen.record->costs(0), 1.0);
  EXPECT_EQ(warnings.str(), "");
}

// A config measured in the model (the end-of-tuning check's record) counts at that cost, its
// newest such record alone, in place of its task records; other configs keep theirs.
TEST(ApplyHistoryTest, ARecordMeasuredInTheModelStandsForItsConfig) {
  auto log = records::TuningLog::Open(FreshTempPath("in_model.db"));
  task::Task task("dense.x86(64,64,64,float32)", "llvm");
  const auto& s = task.config_space();
  auto in_model = [&](const space::ConfigEntity& c, double cost, double time) {
    tuning::MeasureRecord r = RecordOf(task, c, cost);
    r.set_in_model(true);
    r.set_timestamp(time);
    return r;
  };
  // Config 3 promised 1.0 as a task and ran 4.0, then 3.5, in the model; config 5 ran 2.0 there.
  // Config 7's task record, 1.5, counts at 3.5 times that, as config 3 ran 3.5 times slower in
  // the model than as a task.
  log->AppendBatch({RecordOf(task, s.Get(3), 1.0), RecordOf(task, s.Get(7), 1.5),
                    in_model(s.Get(3), 4.0, 1), in_model(s.Get(5), 2.0, 1),
                    in_model(s.Get(3), 3.5, 2)});
  std::ostringstream warnings;
  ChosenConfig chosen = ChooseConfig(task, log.get(), warnings);
  EXPECT_EQ(chosen.config, s.Get(5));
  ASSERT_TRUE(chosen.record.has_value());
  EXPECT_TRUE(chosen.record->in_model());
  // A task record of a config the model has not run still wins where it is that much faster:
  // the next check tries it.
  log->Append(RecordOf(task, s.Get(9), 0.5));
  EXPECT_EQ(ChooseConfig(task, log.get(), warnings).config, s.Get(9));
  // A preferred config is taken within the tolerance of the best, but not within its slack:
  // records measured in the model paid for their layouts there, and the others count at the
  // model's slowdown.
  ConfigPreference prefer_7;
  prefer_7.wanted = [&](const space::ConfigEntity& c) { return c == s.Get(7); };
  prefer_7.slack_s = 8.0;
  EXPECT_EQ(ChooseConfig(task, log.get(), warnings, prefer_7).config, s.Get(9));
  prefer_7.tolerance = 4.0;
  EXPECT_EQ(ChooseConfig(task, log.get(), warnings, prefer_7).config, s.Get(7));
  log->Append(in_model(s.Get(9), 1.4, 2));
  // The newest in-model record of config 3, not its older one, is what counts.
  log->Append(in_model(s.Get(3), 1.2, 3));
  EXPECT_EQ(ChooseConfig(task, log.get(), warnings).config, s.Get(3));
}

// Records timed with cold weights (as the model reads them) decide once a workload has any: a
// config timed warm, however fast, no longer competes with them.
TEST(ApplyHistoryTest, RecordsTimedWithColdWeightsOutrankWarmOnes) {
  auto log = records::TuningLog::Open(FreshTempPath("cold.db"));
  task::Task task("dense.x86(64,64,64,float32)", "llvm");
  const auto& s = task.config_space();
  auto cold = [&](const space::ConfigEntity& c, double cost) {
    tuning::MeasureRecord r = RecordOf(task, c, cost);
    r.set_cold_weights(true);
    return r;
  };
  log->AppendBatch({RecordOf(task, s.Get(3), 1.0), RecordOf(task, s.Get(5), 2.0)});
  std::ostringstream warnings;
  EXPECT_EQ(ChooseConfig(task, log.get(), warnings).config, s.Get(3));
  log->AppendBatch({cold(s.Get(5), 3.0), cold(s.Get(7), 2.5)});
  ChosenConfig chosen = ChooseConfig(task, log.get(), warnings);
  EXPECT_EQ(chosen.config, s.Get(7));
  ASSERT_TRUE(chosen.record.has_value());
  EXPECT_TRUE(chosen.record->cold_weights());
}

// A preferred config (a convolution whose input block its producer writes) wins when it is
// within the tolerance of the best record, and only then.
TEST(ApplyHistoryTest, APreferredRecordWithinTheToleranceWins) {
  auto log = records::TuningLog::Open(FreshTempPath("preferred.db"));
  task::Task task("dense.x86(64,64,32,float32)", "llvm");
  const auto& s = task.config_space();
  log->AppendBatch({RecordOf(task, s.Get(3), 1.0), RecordOf(task, s.Get(5), 1.05),
                    RecordOf(task, s.Get(7), 1.02), RecordOf(task, s.Get(9), 1.5)});
  std::ostringstream warnings;
  auto wanting = [&](std::vector<int64_t> indices, double tolerance, double slack_s = 0) {
    ConfigPreference p;
    p.wanted = [indices](const space::ConfigEntity& c) {
      return std::find(indices.begin(), indices.end(), c.index()) != indices.end();
    };
    p.tolerance = tolerance;
    p.slack_s = slack_s;
    return ChooseConfig(task, log.get(), warnings, p).config;
  };
  EXPECT_EQ(wanting({5, 7}, 1.1), s.Get(7));  // the fastest wanted one
  EXPECT_EQ(wanting({5}, 1.1), s.Get(5));
  EXPECT_EQ(wanting({9}, 1.1), s.Get(3));  // too slow: the best
  EXPECT_EQ(wanting({9}, 2.0), s.Get(9));
  EXPECT_EQ(wanting({9}, 1.1, 0.3), s.Get(3));
  EXPECT_EQ(wanting({9}, 1.1, 0.45), s.Get(9));
  EXPECT_EQ(ChooseConfig(task, log.get(), warnings).config, s.Get(3));
  EXPECT_EQ(warnings.str(), "");
}

TEST(ApplyHistoryTest, RecordsAreMatchedByThreadCount) {
  auto log = records::TuningLog::Open(FreshTempPath("threads.db"));
  const char* key = "dense.x86(64,64,48,float32)";
  task::Task plain(key, "llvm -mcpu=znver4");  // default thread count, as logs before -num-threads
  task::Task one(key, "llvm -mcpu=znver4 -num-threads=1");
  task::Task three(key, "llvm -mcpu=znver4 -num-threads=3");
  const auto& s = plain.config_space();
  log->AppendBatch({RecordOf(plain, s.Get(3), 1.0), RecordOf(one, s.Get(5), 0.5)});
  std::ostringstream warnings;

  ChosenConfig at_one = ChooseConfig(one, log.get(), warnings);
  EXPECT_EQ(at_one.config, s.Get(5));
  EXPECT_FALSE(at_one.other_threads);
  // A faster record of another thread count is not taken.
  ChosenConfig at_default = ChooseConfig(plain, log.get(), warnings);
  EXPECT_EQ(at_default.config, s.Get(3));
  EXPECT_FALSE(at_default.other_threads);
  EXPECT_EQ(warnings.str(), "");

  // None at 3 threads: the default thread count's, announced once.
  for (int i = 0; i < 2; ++i) {
    ChosenConfig at_three = ChooseConfig(three, log.get(), warnings);
    EXPECT_EQ(at_three.config, s.Get(3));
    EXPECT_TRUE(at_three.other_threads);
  }
  EXPECT_EQ(warnings.str(),
            "warning: no tuning record in " + log->path() + " for " + key +
                " on 'llvm -mcpu=znver4 -num-threads=3': using one of 'llvm -mcpu=znver4' "
                "(measured at the default thread count; run `tessera tune` with --target 'llvm "
                "-mcpu=znver4 -num-threads=3' for records of its own)\n");
}

TEST(ApplyHistoryTest, DefaultThreadsTargetDropsOnlyTheThreadCount) {
  EXPECT_EQ(DefaultThreadsTarget("llvm -mcpu=native -num-threads=2"), "llvm -mcpu=native");
  EXPECT_EQ(DefaultThreadsTarget("llvm -num-threads=1 -mattr=+avx2"), "llvm -mattr=+avx2");
  EXPECT_EQ(DefaultThreadsTarget("llvm -mcpu=native"), "llvm -mcpu=native");
  EXPECT_EQ(DefaultThreadsTarget("c"), "c");
}

TEST(ApplyHistoryTest, WithoutARecordTheFallbackIsUsedAndAnnouncedOnce) {
  auto log = records::TuningLog::Open(FreshTempPath("empty.db"));
  task::Task task("dense.x86(32,64,16,float32)", "llvm -mcpu=znver3");
  std::ostringstream warnings;
  ChosenConfig chosen = ChooseConfig(task, log.get(), warnings);
  EXPECT_TRUE(chosen.config.is_fallback());
  EXPECT_FALSE(chosen.record.has_value());
  EXPECT_THAT(warnings.str(),
              HasSubstr("no tuning record in " + log->path() +
                        " for dense.x86(32,64,16,float32) on 'llvm -mcpu=znver3': using the "
                        "fallback configuration"));
  std::ostringstream again;
  ChooseConfig(task, log.get(), again);
  EXPECT_EQ(again.str(), "");
}

// Without a record of its own, a task takes the best config of the nearest tuned shape of its
// template and target that fits its space, announced; no shape near enough: the fallback.
TEST(ApplyHistoryTest, WithoutARecordTheNearestTunedShapesConfigIsUsed) {
  auto log = records::TuningLog::Open(FreshTempPath("nearest.db"));
  task::Task task("dense.x86(64,64,48,float32)", "llvm");
  task::Task near("dense.x86(64,64,64,float32)", "llvm");
  task::Task farther("dense.x86(64,128,96,float32)", "llvm");
  task::Task far("dense.x86(1024,1024,1024,float32)", "llvm");
  task::Task near_elsewhere("dense.x86(64,64,64,float32)", "llvm -mcpu=skylake");
  // A config of `near` that fits `task` (its tiles divide both shapes), and a better one of
  // `near` that does not fit: the best that fits is taken only within 1.25x of the best.
  auto fits = [&](const space::ConfigEntity& c) {
    try {
      space::ConfigFromProto(task.config_space(), space::ConfigToProto(c));
      return true;
    } catch (const UserError&) {
      return false;
    }
  };
  const space::ConfigSpace& ns = near.config_space();
  int64_t fitting = -1, unfitting = -1;
  for (int64_t i = 0; i < ns.size(); ++i) {
    if (fits(ns.Get(i))) {
      if (fitting < 0) fitting = i;
    } else if (unfitting < 0) {
      unfitting = i;
    }
  }
  ASSERT_GE(fitting, 0);
  ASSERT_GE(unfitting, 0);
  log->AppendBatch({RecordOf(near, ns.Get(unfitting), 1.0), RecordOf(near, ns.Get(fitting), 1.2),
                    RecordOf(farther, farther.config_space().Get(0), 0.1),
                    RecordOf(far, far.config_space().Get(0), 0.1),
                    RecordOf(near_elsewhere, ns.Get(unfitting), 0.1)});
  std::ostringstream warnings;
  ChosenConfig chosen = ChooseConfig(task, log.get(), warnings);
  EXPECT_FALSE(chosen.record.has_value());
  EXPECT_EQ(chosen.nearest_workload, "dense.x86(64,64,64,float32)");
  EXPECT_EQ(space::ConfigToProto(chosen.config).SerializeAsString(),
            space::ConfigToProto(ns.Get(fitting)).SerializeAsString());
  EXPECT_THAT(warnings.str(),
              HasSubstr("no tuning record in " + log->path() +
                        " for dense.x86(64,64,48,float32) on 'llvm': using the best config of the "
                        "nearest tuned shape, dense.x86(64,64,64,float32)"));
  // Only the far shape tuned: the fallback.
  auto far_only = records::TuningLog::Open(FreshTempPath("far.db"));
  far_only->Append(RecordOf(far, far.config_space().Get(0), 0.1));
  std::ostringstream ignored;
  ChosenConfig fallback = ChooseConfig(task, far_only.get(), ignored);
  EXPECT_TRUE(fallback.config.is_fallback());
  EXPECT_EQ(fallback.nearest_workload, "");
}

TEST(ApplyHistoryTest, RecordsThatNoLongerFitAreSkipped) {
  auto log = records::TuningLog::Open(FreshTempPath("stale.db"));
  task::Task task("dense.x86(48,64,16,float32)", "llvm");
  tuning::MeasureRecord stale = RecordOf(task, task.config_space().Get(1), 0.1);
  stale.set_config_json("{\"entity\":[[\"tile_q\",\"sp\",[-1,2]]]}");
  log->AppendBatch({stale, RecordOf(task, task.config_space().Get(2), 0.2)});
  std::ostringstream warnings;
  EXPECT_EQ(ChooseConfig(task, log.get(), warnings).config, task.config_space().Get(2));
  task::Task untuned("dense.x86(48,64,32,float32)", "llvm");
  log->Append(stale);
  ChooseConfig(untuned, nullptr, warnings);
  EXPECT_THAT(warnings.str(), HasSubstr("no tuning log was given for dense.x86(48,64,32,float32)"));
}

// A record of another template version is skipped; the fallback's warning and `unused_records`
// name the versions. A record without a version (written before versions) counts as version 1.
TEST(ApplyHistoryTest, RecordsOfAnotherTemplateVersionAreSkipped) {
  auto log = records::TuningLog::Open(FreshTempPath("versions.db"));
  task::Task task("dense.x86(32,64,48,float32)", "llvm");
  ASSERT_EQ(task.templ().version, 1);
  const auto& s = task.config_space();
  tuning::MeasureRecord newer = RecordOf(task, s.Get(3), 0.5);
  newer.set_template_version(2);
  tuning::MeasureRecord newest = RecordOf(task, s.Get(4), 0.4);
  newest.set_template_version(3);
  log->AppendBatch({newer, newest});
  std::ostringstream warnings;
  ChosenConfig chosen = ChooseConfig(task, log.get(), warnings);
  EXPECT_TRUE(chosen.config.is_fallback());
  EXPECT_FALSE(chosen.record.has_value());
  EXPECT_EQ(chosen.unused_records, "records of template version 2 and 3, this build has 1");
  EXPECT_THAT(warnings.str(),
              HasSubstr("no tuning record of this template version in " + log->path() +
                        " (records of template version 2 and 3, this build has 1) for "
                        "dense.x86(32,64,48,float32) on 'llvm': using the fallback"));

  log->Append(RecordOf(task, s.Get(5), 1.0));  // no template_version: version 1
  chosen = ChooseConfig(task, log.get(), warnings);
  EXPECT_EQ(chosen.config, s.Get(5));
  EXPECT_EQ(chosen.unused_records, "");
  ASSERT_TRUE(chosen.record.has_value());
  EXPECT_EQ(chosen.record->template_version(), 1);
}

}  // namespace
}  // namespace tuner
}  // namespace tessera
