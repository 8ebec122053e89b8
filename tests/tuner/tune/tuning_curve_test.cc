#include "tuner/tune/tuning_curve.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "common/error.h"
#include "common/file.h"
#include "records/tuning_log.h"

namespace tessera {
namespace tuner {
namespace {

const char* kTarget = "llvm -mcpu=znver4";
const char* kConv = "conv2d_NCHWc.x86(1,8,8,8,8,3,3,1,1,float32)";
const char* kDense = "dense.x86(1,10,128,float32)";

tuning::MeasureRecord Record(const std::string& workload, const std::string& target,
                             double timestamp, double cost) {
  static int64_t config = 0;
  tuning::MeasureRecord r;
  r.set_workload_key(workload);
  r.set_target(target);
  r.set_device_key("local");
  r.set_config_index(++config);
  r.add_costs(cost);
  if (cost < 0) {
    r.clear_costs();
    r.set_error_kind(tuning::RUNTIME_ERROR);
    r.set_error_message("crashed");
  }
  r.set_timestamp(timestamp);
  r.set_tuner_version("test");
  return r;
}

class TuningCurveTest : public ::testing::Test {
 protected:
  TempDir dir_;
  std::unique_ptr<records::TuningLog> log_ = records::TuningLog::Open(dir_.path() + "/t.db");
  // The conv is used twice in the model.
  std::vector<ModelTask> tasks_ = {{kConv, 2, 1e6}, {kDense, 1, 1e4}};
};

TEST_F(TuningCurveTest, EstimatesFollowTheRecordsInTimeOrder) {
  log_->AppendBatch({Record(kConv, kTarget, 100, 0.004), Record(kConv, kTarget, 101, -1)});
  log_->AppendBatch({Record(kDense, kTarget, 110, 0.001)});
  log_->AppendBatch({Record(kConv, kTarget, 105, 0.003)});  // appended late, measured earlier
  log_->AppendBatch({Record(kConv, "llvm", 103, 0.0001)});  // another target: not counted
  log_->AppendBatch({Record("dense.x86(2,2,2,float32)", kTarget, 104, 1e-6)});  // not the model's

  std::vector<CurvePoint> curve = TuningCurveFromLog(tasks_, kTarget, *log_);
  ASSERT_EQ(curve.size(), 4u);
  const double seconds[] = {0, 1, 5, 10};
  const double estimated[] = {0.008, 0.008, 0.006, 0.007};
  const int measured[] = {1, 1, 1, 2};
  for (size_t i = 0; i < curve.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_DOUBLE_EQ(curve[i].seconds, seconds[i]);
    EXPECT_EQ(curve[i].trials, static_cast<int64_t>(i) + 1);
    EXPECT_DOUBLE_EQ(curve[i].estimated, estimated[i]);
    EXPECT_EQ(curve[i].measured_tasks, measured[i]);
  }
  // Only the last point has both tasks measured.
  EXPECT_EQ(FirstWithin(curve, 2, 0.05), 3);
  EXPECT_EQ(FirstWithin(curve, 3, 0.05), -1);
}

// A Winograd alternative of the convolution counts once, at the faster of the two.
TEST_F(TuningCurveTest, AnAlternativeCountsAtTheFasterOfTheTwo) {
  const char* winograd = "conv2d_winograd_NCHWc.x86(1,8,8,8,8,1,float32)";
  std::vector<ModelTask> tasks = tasks_;
  ModelTask alternative{winograd, 2, 1e6};
  alternative.alternative_to = kConv;
  tasks.push_back(alternative);
  log_->AppendBatch({Record(kConv, kTarget, 100, 0.004), Record(winograd, kTarget, 101, 0.005),
                     Record(winograd, kTarget, 102, 0.002), Record(kDense, kTarget, 103, 0.001)});
  std::vector<CurvePoint> curve = TuningCurveFromLog(tasks, kTarget, *log_);
  ASSERT_EQ(curve.size(), 4u);
  EXPECT_DOUBLE_EQ(curve[1].estimated, 0.008);  // the direct one, still faster
  EXPECT_DOUBLE_EQ(curve[2].estimated, 0.004);
  EXPECT_DOUBLE_EQ(curve[3].estimated, 0.005);
  EXPECT_EQ(curve[3].measured_tasks, 3);
}

TEST_F(TuningCurveTest, FirstWithinToleranceOfTheFinalEstimate) {
  log_->AppendBatch({Record(kDense, kTarget, 0, 0.001), Record(kConv, kTarget, 1, 0.010),
                     Record(kConv, kTarget, 2, 0.0052), Record(kConv, kTarget, 3, 0.0050)});
  std::vector<CurvePoint> curve = TuningCurveFromLog(tasks_, kTarget, *log_);
  ASSERT_EQ(curve.size(), 4u);
  // Final 0.011 s; 0.0114 s is within 5%, 0.021 s is not.
  EXPECT_EQ(FirstWithin(curve, 2, 0.05), 2);
  EXPECT_EQ(FirstWithin(curve, 2, 0.01), 3);
  EXPECT_TRUE(TuningCurveFromLog(tasks_, "c", *log_).empty());
}

std::string Lines(const std::string& path) { return ReadFile(path, "curve"); }

TEST_F(TuningCurveTest, WriterContinuesAnEarlierRunsCurve) {
  const std::string path = dir_.path() + "/curve.csv";
  {
    CurveWriter writer(path);
    writer.Add({1.5, 0, 8, 0.012, 2});
    writer.Add({3.0, 0, 16, 0.0105, 2});
  }
  CurveWriter resumed(path);
  resumed.Add({2.0, 0, 24, 0.01, 2});
  EXPECT_EQ(Lines(path),
            "seconds,trials,estimated_ms,measured_tasks\n"
            "1.500,8,12,2\n"
            "3.000,16,10.5,2\n"
            "5.000,24,10,2\n");
}

TEST_F(TuningCurveTest, WriterRefusesAnotherFile) {
  const std::string path = dir_.path() + "/notes.csv";
  WriteFile(path, "a,b\n1,2\n", "test file");
  try {
    CurveWriter writer(path);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("notes.csv: not a tuning curve"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tuner
}  // namespace tessera
