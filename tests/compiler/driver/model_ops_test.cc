// Every supported operator pattern on small generated ONNX models, against PyTorch/numpy.
#include <gtest/gtest.h>

#include <sstream>

#include "compiler/frontend/onnx/onnx_importer.h"
#include "compiler/space/config_proto.h"
#include "tests/compiler/driver/model_check.h"
#include "tuner/log/tuning_log.h"
#include "tuner/task/task.h"

namespace tessera {
namespace {

const std::string& ModelDir() {
  static const std::string dir = [] {
    std::string d = testing::TempDir("op_models");
    testing::RunPython("tests/compiler/driver/models/make_op_models.py", d);
    return d;
  }();
  return dir;
}

class ModelOpsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ModelOpsTest, MatchesReference) { testing::CheckModel(ModelDir(), GetParam(), 1e-4, 1e-5); }

INSTANTIATE_TEST_SUITE_P(Ops, ModelOpsTest,
                         ::testing::Values("conv_bn_add_relu", "conv_stem_strided",
                                           "depthwise_relu6", "residual_blocks",
                                           "conv_grouped_asym", "pooling", "flatten_gemm_softmax",
                                           "attention_block", "shapes_and_indexing"));

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

// Layouts change only where needed: the first convolution's epilogue writes the second one's
// blocked input, so only the model input is packed.
TEST(LayoutTest, ConvolutionFeedsConvolutionBlocked) {
  ModelBuild build = testing::CheckModel(ModelDir(), "conv_stem_strided", 1e-4, 1e-5);
  int packs = 0;
  for (const runtime::ExecNode& n : build.graph.nodes) {
    packs += n.function.find("pack_NCHWc") != std::string::npos;
  }
  EXPECT_EQ(packs, 1);
}

// A residual chain stays blocked: values read by a convolution and a residual add, the max pool
// and the depthwise convolution keep NCHW16c, so the model input is the only layout change, and
// every convolution's bias, activation and residual add run in its own kernel's output stage.
TEST(LayoutTest, ResidualBlocksStayBlocked) {
  ModelBuild build = testing::CheckModel(ModelDir(), "residual_blocks", 1e-4, 1e-5);
  int transforms = 0, convolutions = 0, epilogues = 0;
  for (const runtime::ExecNode& n : build.graph.nodes) {
    transforms += n.function.find("pack_NCHWc") != std::string::npos;
    convolutions += n.function.find("conv2d_NCHWc") != std::string::npos;
    epilogues += n.function.find("epilogue") != std::string::npos;
  }
  EXPECT_EQ(transforms, 1);  // the input's pack; no unpack_NCHWc, repack_NCHWc
  EXPECT_EQ(convolutions, 6);
  EXPECT_EQ(epilogues, 1);  // the Gemm's bias
  EXPECT_EQ(build.graph.nodes.size(), 11u);
}

// Each convolution tuned alone can read another block than its producer writes; the build
// gives a tuned convolution its producer's block (only the innermost reduction loop changes), so
// the graph stays as blocked as untuned: no repack, no unfused epilogue.
TEST(LayoutTest, TunedConvolutionsReadTheirProducersBlock) {
  ModelBuildOptions options;
  std::vector<tuning::MeasureRecord> records;
  int convolutions = 0;
  for (const ModelTask& t :
       ExtractTasks(frontend::ImportOnnx(ModelDir() + "/residual_blocks.onnx"), options)) {
    if (t.workload_key.rfind("conv2d_NCHWc.x86", 0) != 0) continue;
    tuner::Task task(t.workload_key, options.target);
    // Blocks of one input channel: no producer writes those.
    const space::ConfigEntity config =
        task.config_space().WithSplitInner(task.config_space().Fallback(), "tile_ic", 1);
    tuning::MeasureRecord r;
    r.set_workload_key(task.workload_key());
    r.set_target(task.target());
    r.set_config_index(config.index());
    *r.mutable_config() = space::ConfigToProto(config);
    r.add_costs(1e-3);
    records.push_back(r);
    ++convolutions;
  }
  ASSERT_EQ(convolutions, 4);
  auto log = tuner::TuningLog::Open(testing::TempDir("tuned_blocks") + "/t.db");
  log->AppendBatch(records);
  options.log = log.get();
  ModelBuild build = testing::CheckModel(ModelDir(), "residual_blocks", 1e-4, 1e-5, false, options);
  int transforms = 0, epilogues = 0, tuned = 0;
  for (const runtime::ExecNode& n : build.graph.nodes) {
    transforms += n.function.find("pack_NCHWc") != std::string::npos;
    epilogues += n.function.find("epilogue") != std::string::npos;
  }
  for (const ModelTask& t : build.tasks) tuned += t.tuned;
  EXPECT_EQ(tuned, convolutions);
  EXPECT_EQ(transforms, 1);  // the input's pack
  EXPECT_EQ(epilogues, 1);   // the Gemm's bias
  EXPECT_EQ(build.graph.nodes.size(), 11u);
}

// Task extraction (for model-level tuning): the template workloads, deduplicated, with their
// weights and FLOPs, and whether a record exists; nothing is compiled.
TEST(ExtractTasksTest, ListsTemplateWorkloads) {
  graph::Graph g = frontend::ImportOnnx(ModelDir() + "/attention_block.onnx");
  std::ostringstream warnings;
  ModelBuildOptions options;
  options.warnings = &warnings;
  std::vector<ModelTask> tasks = ExtractTasks(std::move(g), options);
  ASSERT_EQ(tasks.size(), 3u);
  EXPECT_EQ(tasks[0].workload_key, "dense.x86(10,24,16,float32)");
  EXPECT_EQ(tasks[0].flops, 2.0 * 10 * 24 * 16);
  EXPECT_EQ(tasks[1].workload_key, "batch_matmul.x86(4,5,5,12,float32)");
  EXPECT_EQ(tasks[1].weight, 1);
  EXPECT_FALSE(tasks[2].tuned);
}

}  // namespace
}  // namespace tessera
