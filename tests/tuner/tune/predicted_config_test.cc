#include "tuner/tune/predicted_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/space/config_proto.h"
#include "compiler/support/error.h"
#include "records/tuning_log.h"
#include "tests/tuner/testing/log_records.h"
#include "tuner/tune/apply_history.h"

namespace tessera {
namespace tuner {
namespace {

using ::testing::HasSubstr;

using testing::FreshTempPath;
using testing::RecordOf;

// Records of `shapes`: each one's fallback, as a tuning run measures it first, then the same 30
// configs (spread over the first shape's space, each where it fits), whose cost halves where
// `fast(config)` holds, times 1 + `spread` × (0 to 6) so that configs tie only without spread.
std::vector<tuning::MeasureRecord> RecordsWhere(
    const std::vector<std::string>& shapes, const std::string& target,
    const std::function<bool(const space::ConfigEntity&)>& fast, double spread = 0.01) {
  const task::Task first(shapes[0], target);
  const space::ConfigSpace& probes = first.config_space();
  std::vector<tuning::MeasureRecord> out;
  for (const std::string& key : shapes) {
    const task::Task t(key, target);
    const space::ConfigSpace& s = t.config_space();
    auto add = [&](const space::ConfigEntity& c, int64_t i) {
      out.push_back(RecordOf(t, c, (fast(c) ? 1.0 : 2.0) * (1 + spread * (i % 7))));
    };
    add(s.Fallback(), 0);
    for (int64_t i = 1; i <= 30; ++i) {
      try {
        add(space::ConfigFromProto(s, space::ConfigToProto(probes.Get(i * 7919 % probes.size()))),
            i);
      } catch (const UserError&) {
        // Its tiles do not divide this shape.
      }
    }
  }
  return out;
}

const std::vector<std::string> kTunedShapes = {
    "dense.x86(1,64,64,float32)", "dense.x86(1,128,64,float32)", "dense.x86(1,64,128,float32)",
    "dense.x86(1,128,128,float32)"};
// Far from every tuned shape (log ratios of about 3.5 in two arguments): no nearest record.
const char kFarShape[] = "dense.x86(1,2048,2048,float32)";

// The tuned shapes all ran faster without software prefetch, which the fallback turns on: a
// workload far from all of them takes a config without it, from what ran fast on them, and the
// build says where it came from.
TEST(PredictedConfigTest, AFarShapeTakesTheConfigTheModelOfOtherShapesRanksFirst) {
  auto log = records::TuningLog::Open(FreshTempPath("predicted.db"));
  log->AppendBatch(RecordsWhere(
      kTunedShapes, "llvm", [](const space::ConfigEntity& c) { return c.Value("prefetch") == 0; }));
  task::Task task(kFarShape, "llvm");
  ASSERT_EQ(task.config_space().Fallback().Value("prefetch"), 1);

  std::optional<ChosenConfig> predicted = PredictedConfig(task, *log);
  ASSERT_TRUE(predicted.has_value());
  EXPECT_EQ(predicted->config.Value("prefetch"), 0);
  EXPECT_FALSE(predicted->record.has_value());
  EXPECT_THAT(predicted->predicted_from,
              HasSubstr("the cost model of 124 records of 4 tuned shapes (predicted "));
  // Held out, each shape's pick (a config without prefetch) ran in about half the fallback's time.
  EXPECT_THAT(predicted->predicted_from,
              HasSubstr("x the fallback's speed; on 4 shapes held out from it, its picks ran in "
                        "0.5"));

  ForgetConfigNotices();
  std::ostringstream warnings;
  ChosenConfig chosen = ChooseConfig(task, log.get(), warnings);
  EXPECT_EQ(chosen.config, predicted->config);
  EXPECT_EQ(chosen.nearest_workload, "");
  EXPECT_THAT(warnings.str(),
              HasSubstr("no tuning record in " + log->path() + " for " + kFarShape +
                        " on 'llvm' and no tuned shape near it: using the config the cost model "
                        "of 124 records of 4 tuned shapes"));
  EXPECT_THAT(warnings.str(),
              HasSubstr("x the fallback's time) ranks first (run `tessera tune` for it)"));
}

// Where the tuned shapes ran fastest with what the fallback does (and no faster otherwise), the
// fallback stays, announced as such: among configs the model cannot tell apart, the fallback.
TEST(PredictedConfigTest, TheFallbackStaysWhereTheModelRanksItFirst) {
  auto log = records::TuningLog::Open(FreshTempPath("fallback_first.db"));
  log->AppendBatch(RecordsWhere(
      kTunedShapes, "llvm",
      [](const space::ConfigEntity& c) {
        return c.Value("prefetch") == 1 && c.Value("unroll_k") == 1;
      },
      /*spread=*/0));
  task::Task task(kFarShape, "llvm");
  EXPECT_FALSE(PredictedConfig(task, *log).has_value());
  ForgetConfigNotices();
  std::ostringstream warnings;
  EXPECT_TRUE(ChooseConfig(task, log.get(), warnings).config.is_fallback());
  EXPECT_THAT(warnings.str(), HasSubstr("using the fallback configuration"));
}

// A model that cannot show it beats the fallback on shapes held out from it is not used: here no
// tuned shape measured its fallback, so there is nothing to judge its picks against.
TEST(PredictedConfigTest, AModelUncheckedOnHeldOutShapesIsNotUsed) {
  std::vector<tuning::MeasureRecord> records = RecordsWhere(
      kTunedShapes, "llvm", [](const space::ConfigEntity& c) { return c.Value("prefetch") == 0; });
  std::vector<tuning::MeasureRecord> without_fallbacks;
  for (const tuning::MeasureRecord& r : records) {
    const task::Task t(r.workload_key(), "llvm");
    if (space::ConfigFromProto(t.config_space(), r.config()) != t.config_space().Fallback()) {
      without_fallbacks.push_back(r);
    }
  }
  ASSERT_GE(without_fallbacks.size(), 64u);
  auto log = records::TuningLog::Open(FreshTempPath("unchecked.db"));
  log->AppendBatch(without_fallbacks);
  EXPECT_FALSE(PredictedConfig(task::Task(kFarShape, "llvm"), *log).has_value());
}

// Too little to learn from: fewer than three shapes, fewer than 64 records, another target.
TEST(PredictedConfigTest, TooFewRecordsOrShapesLeaveTheFallback) {
  auto prefetch_off = [](const space::ConfigEntity& c) { return c.Value("prefetch") == 0; };
  task::Task task(kFarShape, "llvm");

  auto two_shapes = records::TuningLog::Open(FreshTempPath("two_shapes.db"));
  two_shapes->AppendBatch(RecordsWhere({kTunedShapes[0], kTunedShapes[1]}, "llvm", prefetch_off));
  two_shapes->AppendBatch(RecordsWhere({kTunedShapes[0], kTunedShapes[1]}, "llvm", prefetch_off));
  EXPECT_FALSE(PredictedConfig(task, *two_shapes).has_value());

  auto few = records::TuningLog::Open(FreshTempPath("few.db"));
  std::vector<tuning::MeasureRecord> records = RecordsWhere(kTunedShapes, "llvm", prefetch_off);
  records.resize(63);  // 64 needed
  few->AppendBatch(records);
  EXPECT_FALSE(PredictedConfig(task, *few).has_value());

  auto elsewhere = records::TuningLog::Open(FreshTempPath("elsewhere.db"));
  elsewhere->AppendBatch(RecordsWhere(kTunedShapes, "llvm -mcpu=skylake", prefetch_off));
  EXPECT_FALSE(PredictedConfig(task, *elsewhere).has_value());
  ForgetConfigNotices();
  std::ostringstream warnings;
  EXPECT_TRUE(ChooseConfig(task, elsewhere.get(), warnings).config.is_fallback());
}

}  // namespace
}  // namespace tuner
}  // namespace tessera
