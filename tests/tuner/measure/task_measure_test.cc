#include "tuner/measure/task_measure.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "compiler/driver/build.h"
#include "compiler/driver/vector_unit.h"
#include "compiler/topi/conv2d_nchwc_x86.h"
#include "runtime/ndarray.h"
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
  task::Task task("dense.x86(32,32,32,float32)", "llvm");
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

// The weights (the templates' packed second argument) are what --cold-weights evicts; a
// template without weights evicts nothing; --flush-cache evicts everything.
TEST(TaskMeasureTest, ColdWeightsEvictTheTemplatesWeightArguments) {
  RunOptions cold;
  cold.cold_weights = true;
  for (const char* key :
       {"dense.x86(8,16,8,float32)", "conv2d_NCHWc.x86(1,8,6,6,8,3,3,1,1,float32)",
        "depthwise_conv2d_NCHWc.x86(1,16,6,6,3,3,1,1,float32)",
        "conv2d_winograd_NCHWc.x86(1,8,8,8,16,1,float32)"}) {
    EXPECT_EQ(EvictedArguments(task::Task(key, "llvm"), cold, 3), (std::vector<int>{1})) << key;
  }
  task::Task batch_matmul("batch_matmul.x86(1,4,8,2,float32)", "llvm");
  EXPECT_TRUE(EvictedArguments(batch_matmul, cold, 3).empty());
  EXPECT_TRUE(EvictedArguments(batch_matmul, {}, 3).empty());
  RunOptions all;
  all.flush_cache = true;
  EXPECT_EQ(EvictedArguments(batch_matmul, all, 3), (std::vector<int>{0, 1, 2}));
  // End to end: cold candidates are checked and timed as warm ones are.
  task::Task conv("conv2d_NCHWc.x86(1,8,6,6,8,3,3,1,1,float32)", "llvm");
  LocalMeasurer measurer(TaskBuildFn(conv), TaskRunFn(conv, cold), {2, 60, 30, true, WorkDir()});
  for (const MeasureOutcome& o : measurer.Measure({conv.config_space().Fallback()})) {
    ASSERT_TRUE(o.ok()) << o.message;
    EXPECT_EQ(o.costs.size(), 3u);
  }
}

using ::testing::HasSubstr;

space::ConfigEntity ConvConfig(const task::Task& task, int64_t ic_bn, int64_t oc_bn,
                               int64_t reg_n) {
  return task.config_space().FromValues({{"tile_ic", {-1, ic_bn}},
                                         {"tile_oc", {-1, oc_bn}},
                                         {"tile_oh", {-1, 1}},
                                         {"tile_ow", {-1, reg_n}},
                                         {"unroll_kw", {1}},
                                         {"border_rows", {1}}});
}

TEST(TaskMeasureTest, PlainTemplatesTakeTheFixtureAsItIs) {
  task::Task task("batch_matmul.x86(1,4,8,2,float32)", "llvm");
  auto fixture = MakeTaskFixture(task, 1);
  CandidateArgs args = PrepareCandidateArgs(task, *fixture, task.config_space().Fallback());
  EXPECT_EQ(args.shapes, fixture->shapes);
  ASSERT_EQ(args.inputs.size(), fixture->inputs.size());
  for (size_t i = 0; i < args.inputs.size(); ++i) {
    EXPECT_EQ(args.inputs[i].ToFloats(), fixture->inputs[i]);
  }
  std::vector<float> out(32, 2.f);
  EXPECT_EQ(args.output_as_reference(out.data()), out);
}

TEST(TaskMeasureTest, DenseCandidatesGetWeightsPackedInTheirColumnBlock) {
  task::Task task("dense.x86(4,16,2,float32)", "llvm");
  auto fixture = MakeTaskFixture(task, 1);
  space::ConfigEntity config = task.config_space().FromValues(
      {{"tile_y", {-1, 1, 4}}, {"tile_x", {-1, 1, 8}}, {"tile_k", {-1, 2}}, {"unroll_k", {0}}});
  CandidateArgs args = PrepareCandidateArgs(task, *fixture, config);
  EXPECT_EQ(args.shapes, (std::vector<std::vector<int64_t>>{{4, 2}, {2, 2, 8}, {4, 16}}));
  EXPECT_EQ(args.inputs[0].ToFloats(), fixture->inputs[0]);
  const std::vector<float>& w = fixture->inputs[1];  // 16x2
  const std::vector<float> packed = args.inputs[1].ToFloats();
  EXPECT_EQ(packed[0], w[0]);    // packed[0][0][0] = w[0][0]
  EXPECT_EQ(packed[1], w[2]);    // packed[0][0][1] = w[1][0]
  EXPECT_EQ(packed[8], w[1]);    // packed[0][1][0] = w[0][1]
  EXPECT_EQ(packed[16], w[16]);  // packed[1][0][0] = w[8][0]
  // Measured end to end, the first result is checked against the plain reference.
  LocalMeasurer measurer(TaskBuildFn(task), TaskRunFn(task, {}), {2, 60, 30, true, WorkDir()});
  for (const MeasureOutcome& o : measurer.Measure({config, task.config_space().Fallback()})) {
    EXPECT_TRUE(o.ok()) << o.message;
  }
}

TEST(TaskMeasureTest, Conv2dCandidatesGetInputsPackedForTheirConfig) {
  task::Task task("conv2d_NCHWc.x86(1,8,6,6,8,3,3,1,1,float32)", "llvm");
  auto fixture = MakeTaskFixture(task, 1);
  CandidateArgs args = PrepareCandidateArgs(task, *fixture, ConvConfig(task, 2, 4, 3));
  ASSERT_EQ(args.shapes.size(), 3u);
  EXPECT_EQ(args.shapes[0], (std::vector<int64_t>{1, 4, 6, 6, 2}));
  EXPECT_EQ(args.shapes[1], (std::vector<int64_t>{2, 4, 3, 3, 2, 4}));
  EXPECT_EQ(args.shapes[2], (std::vector<int64_t>{1, 2, 6, 6, 4}));
  // data[0, c=1, 0, 0] is element 1 of NCHW[2]c (block 0, lane 1) and element 36 of NCHW.
  EXPECT_EQ(args.inputs[0].ToFloats()[1], fixture->inputs[0][36]);
}

// The check reads the candidate's blocked output through the layout: read raw, it is wrong.
TEST(TaskMeasureTest, TheCheckUnpacksTheBlockedOutput) {
  task::Task task("conv2d_NCHWc.x86(1,8,6,6,8,3,3,1,1,float32)", "llvm");
  auto fixture = MakeTaskFixture(task, 1);
  space::ConfigEntity config = ConvConfig(task, 4, 4, 2);
  CandidateArgs args = PrepareCandidateArgs(task, *fixture, config);
  runtime::Module module = build({LowerCandidate(task, config)}, Target("llvm"));
  std::vector<runtime::NDArray> arrays;
  for (size_t i = 0; i < args.shapes.size(); ++i) {
    arrays.push_back(runtime::NDArray::Empty(args.shapes[i], {kDLFloat, 32, 1}, {kDLCPU, 0}));
    if (i < args.inputs.size()) {
      arrays[i].CopyFromBytes(args.inputs[i].bytes.data(), args.inputs[i].bytes.size());
    }
  }
  module[kCandidateFunction](arrays[0], arrays[1], arrays[2]);
  std::vector<float> got = args.output_as_reference(arrays[2].Data<float>());
  EXPECT_EQ(CompareOutput(*fixture, got.data(), 1e-4, 1e-4), "");
  EXPECT_THAT(CompareOutput(*fixture, arrays[2].Data<float>(), 1e-4, 1e-4),
              HasSubstr("output element"));
}

TEST(TaskMeasureTest, Conv2dConfigsOfDifferentBlocksMeasureCorrectly) {
  task::Task task("conv2d_NCHWc.x86(1,8,6,6,8,3,3,1,1,float32)", "llvm");
  LocalMeasurer measurer(TaskBuildFn(task), TaskRunFn(task, {}), {2, 60, 30, true, WorkDir()});
  std::vector<space::ConfigEntity> batch = {ConvConfig(task, 1, 8, 6), ConvConfig(task, 8, 2, 1),
                                            ConvConfig(task, 2, 4, 3),
                                            task.config_space().Fallback()};
  for (const MeasureOutcome& o : measurer.Measure(batch)) {
    EXPECT_TRUE(o.ok()) << tuning::ErrorKind_Name(o.error) << " " << o.message;
  }
}

// The fallback and three configs spread over `key`'s space all build, run and pass the check
// against the template's reference.
void ExpectSampledConfigsMeasure(const std::string& key, const std::string& target = "llvm") {
  task::Task task(key, target);
  const space::ConfigSpace& space = task.config_space();
  std::vector<space::ConfigEntity> batch = {
      space.Fallback(), space.Get(0), space.Get(space.size() - 1), space.Get(space.size() / 3)};
  LocalMeasurer measurer(TaskBuildFn(task), TaskRunFn(task, {}), {2, 60, 30, true, WorkDir()});
  std::vector<MeasureOutcome> outcomes = measurer.Measure(batch);
  for (size_t i = 0; i < outcomes.size(); ++i) {
    EXPECT_TRUE(outcomes[i].ok()) << key << " on " << target << " " << batch[i].ToString() << ": "
                                  << tuning::ErrorKind_Name(outcomes[i].error) << " "
                                  << outcomes[i].message;
  }
}

// Winograd candidates take the weights transformed for their tile and compute the direct
// convolution's output (the check compares with the direct reference): both tiles, blocks that
// split the channels or not, several rows of tiles at once, no padding.
TEST(TaskMeasureTest, WinogradConfigsComputeTheConvolution) {
  for (const std::string key : {"conv2d_winograd_NCHWc.x86(1,8,8,8,16,1,float32)",
                                "conv2d_winograd_NCHWc.x86(2,6,6,6,4,1,float32)",
                                "conv2d_winograd_NCHWc.x86(1,4,10,10,8,0,float32)"}) {
    ExpectSampledConfigsMeasure(key);
  }
}

// Grouped candidates read their group's input blocks and the weights of one group's channels;
// the check compares with the direct grouped reference: blocks smaller than a group or a whole
// group (a block never spans two groups), more output than input channels a group, stride 2.
TEST(TaskMeasureTest, GroupedConvConfigsComputeTheConvolution) {
  for (const std::string key : {"group_conv2d_NCHWc.x86(1,16,6,6,16,3,3,1,1,4,float32)",
                                "group_conv2d_NCHWc.x86(1,12,7,7,24,3,3,2,1,3,float32)",
                                "group_conv2d_NCHWc.x86(2,8,5,5,8,1,1,1,0,2,float32)"}) {
    ExpectSampledConfigsMeasure(key);
  }
}

// int8 convolution candidates take uint8 data and int8 weights as int32 words of four channels
// and run the output stage a model runs on the sums: the fixture's inputs are bytes, each word
// holds four consecutive channels, and the output matches the reference exactly.
TEST(TaskMeasureTest, Int8ConvCandidatesTakeBytesInWords) {
  task::Task task("conv2d_NCHWc_int8.x86(1,8,5,5,4,3,3,1,1,3,uint8)", "llvm");
  auto fixture = MakeTaskFixture(task, 1);
  for (float v : fixture->inputs[0]) {
    EXPECT_TRUE(v >= 0 && v <= 255 && v == std::floor(v)) << v;
  }
  for (float v : fixture->inputs[1]) {
    EXPECT_TRUE(v >= -128 && v <= 127 && v == std::floor(v)) << v;
  }
  const space::ConfigEntity config = task.config_space().Fallback();
  const topi::Conv2dBlocks words = topi::Conv2dNCHWcBlocks(config);
  CandidateArgs args = PrepareCandidateArgs(task, *fixture, config);
  // Data and weights as words, then the output stage's per-channel zero-point shares and scales.
  ASSERT_EQ(args.inputs.size(), 4u);
  EXPECT_EQ(args.inputs[0].dtype, ir::DataType::Int(32));
  EXPECT_EQ(args.inputs[1].dtype, ir::DataType::Int(32));
  EXPECT_EQ(args.inputs[2].dtype, ir::DataType::Int(32));
  EXPECT_EQ(args.inputs[3].dtype, ir::DataType::Float(32));
  EXPECT_EQ(args.output_dtype, ir::DataType::Float(32));
  EXPECT_EQ(args.shapes[0], (std::vector<int64_t>{1, 2 / words.ic_bn, 5, 5, words.ic_bn}));
  // Word 0 of the data: channels 0..3 of pixel (0, 0), one per byte.
  const std::vector<uint8_t>& bytes = args.inputs[0].bytes;
  for (int b = 0; b < 4; ++b) {
    EXPECT_EQ(static_cast<float>(bytes[b]), fixture->inputs[0][b * 25]) << "byte " << b;
  }
  ExpectSampledConfigsMeasure("conv2d_NCHWc_int8.x86(1,8,5,5,4,3,3,1,1,3,uint8)");
}

// Sampled configs of the int8 template compute the exact sums (seen through the output stage):
// padding holding the zero point, stride 2, no padding, a batch of two; with the byte dot product
// where the CPU has one.
TEST(TaskMeasureTest, Int8ConvConfigsComputeTheExactSums) {
  std::vector<std::string> targets = {"llvm"};
  if (HasByteDotProduct(Target("llvm -mcpu=native"))) targets.push_back("llvm -mcpu=native");
  for (const std::string& target : targets) {
    for (const std::string key : {"conv2d_NCHWc_int8.x86(1,16,6,6,16,3,3,1,1,128,uint8)",
                                  "conv2d_NCHWc_int8.x86(1,12,7,7,24,3,3,2,1,0,uint8)",
                                  "conv2d_NCHWc_int8.x86(2,8,5,5,8,1,1,1,0,0,uint8)"}) {
      ExpectSampledConfigsMeasure(key, target);
    }
  }
}

// int8 dense candidates take rows of bytes as words, the weights in column blocks of words, and
// give the sums through the output stage (dequantize, bias): prime and padded row counts,
// several column blocks.
TEST(TaskMeasureTest, Int8DenseConfigsComputeTheExactSums) {
  std::vector<std::string> targets = {"llvm"};
  if (HasByteDotProduct(Target("llvm -mcpu=native"))) targets.push_back("llvm -mcpu=native");
  for (const std::string& target : targets) {
    for (const std::string key : {"dense_int8.x86(7,32,24,uint8)", "dense_int8.x86(16,48,64,uint8)",
                                  "dense_int8.x86(1,16,8,uint8)"}) {
      ExpectSampledConfigsMeasure(key, target);
    }
  }
}

}  // namespace
}  // namespace tuner
}  // namespace tessera
