#include "tuner/measure/local_measurer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "compiler/support/error.h"

namespace tessera {
namespace tuner {
namespace {

using ::testing::HasSubstr;

// One knob picks how the candidate behaves.
enum Behaviour { kGood, kCompileError, kBuildHangs, kRunCrashes, kRunHangs, kWrongAnswer };

space::ConfigSpace Space() {
  space::ConfigSpace s;
  s.DefineKnob("behaviour",
               {kGood, kCompileError, kBuildHangs, kRunCrashes, kRunHangs, kWrongAnswer});
  s.DefineKnob("speed", {1, 2});
  return s;
}

std::string WorkDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir ? dir : "/tmp";
}

void BuildCandidate(const space::ConfigEntity& config, const std::string& path) {
  switch (config.Value("behaviour")) {
    case kCompileError:
      throw UserError("split factor does not divide the extent");
    case kBuildHangs:
      sleep(30);
      break;
    default:
      break;
  }
  std::ofstream(path) << config.Value("speed");
}

std::vector<double> RunCandidate(const space::ConfigEntity& config, const std::string& path,
                                 bool check) {
  std::ifstream in(path);
  int speed = 0;
  in >> speed;  // what the builder wrote: the run sees the build's output
  switch (config.Value("behaviour")) {
    case kRunCrashes:
      std::abort();
    case kRunHangs:
      sleep(30);
      break;
    case kWrongAnswer:
      if (check) throw WrongAnswerError("C[3] = 7, expected 8");
      break;
    default:
      break;
  }
  return {1.0 / speed, 1.5 / speed};
}

TEST(LocalMeasurerTest, EveryFailureIsAnOutcomeWithItsKind) {
  // Limits generous enough for a loaded machine; the hanging candidates sleep far longer.
  LocalMeasurer measurer(BuildCandidate, RunCandidate, {2, 5, 5, true, WorkDir()});
  space::ConfigSpace s = Space();
  std::vector<space::ConfigEntity> batch;
  for (int b = kGood; b <= kWrongAnswer; ++b) {
    batch.push_back(s.FromValues({{"behaviour", {b}}, {"speed", {2}}}));
  }
  std::vector<MeasureOutcome> out = measurer.Measure(batch);
  ASSERT_EQ(out.size(), batch.size());
  EXPECT_TRUE(out[kGood].ok());
  EXPECT_DOUBLE_EQ(out[kGood].cost, 0.625);
  EXPECT_EQ(out[kGood].costs, (std::vector<double>{0.5, 0.75}));
  EXPECT_GT(out[kGood].all_cost, 0);

  EXPECT_EQ(out[kCompileError].error, tuning::COMPILE_ERROR);
  EXPECT_THAT(out[kCompileError].message,
              HasSubstr("build failed: split factor does not divide the extent"));
  EXPECT_EQ(out[kBuildHangs].error, tuning::COMPILE_ERROR);
  EXPECT_THAT(out[kBuildHangs].message, HasSubstr("build ran past the time limit"));
  EXPECT_EQ(out[kRunCrashes].error, tuning::RUNTIME_ERROR);
  EXPECT_THAT(out[kRunCrashes].message, HasSubstr("run failed: killed by signal 6"));
  EXPECT_EQ(out[kRunHangs].error, tuning::TIMEOUT);
  EXPECT_THAT(out[kRunHangs].message, HasSubstr("run ran past the time limit"));
  EXPECT_EQ(out[kWrongAnswer].error, tuning::WRONG_ANSWER);
  EXPECT_EQ(out[kWrongAnswer].message, "C[3] = 7, expected 8");
  for (const auto& o : out) {
    if (&o != &out[kGood]) {
      EXPECT_FALSE(o.ok());
    }
  }
}

TEST(LocalMeasurerTest, WithoutCheckingAWrongAnswerIsTimed) {
  LocalMeasurer measurer(BuildCandidate, RunCandidate, {1, 5, 5, false, WorkDir()});
  space::ConfigSpace s = Space();
  auto out = measurer.Measure({s.FromValues({{"behaviour", {kWrongAnswer}}, {"speed", {1}}})});
  EXPECT_TRUE(out[0].ok());
  EXPECT_DOUBLE_EQ(out[0].cost, 1.25);
}

TEST(LocalMeasurerTest, LibrariesAreRemovedAfterMeasuring) {
  std::string dir = WorkDir() + "/libs";
  ASSERT_EQ(std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str()), 0);
  LocalMeasurer measurer(BuildCandidate, RunCandidate, {2, 5, 5, true, dir});
  space::ConfigSpace s = Space();
  measurer.Measure({s.Get(0), s.Get(6), s.Get(1)});
  EXPECT_EQ(std::system(("test -z \"$(ls -A " + dir + ")\"").c_str()), 0);
}

TEST(LocalMeasurerTest, BadOptionsAreUserErrors) {
  EXPECT_THROW(LocalMeasurer(BuildCandidate, RunCandidate, {0, 1, 1, true, ""}), UserError);
  EXPECT_THROW(LocalMeasurer(BuildCandidate, RunCandidate, {1, 0, 1, true, ""}), UserError);
}

}  // namespace
}  // namespace tuner
}  // namespace tessera
