// Every supported operator pattern on small generated ONNX models, against PyTorch/numpy.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "compiler/driver/model_plan.h"
#include "compiler/frontend/onnx/onnx_importer.h"
#include "compiler/graph/infer.h"
#include "compiler/space/config_proto.h"
#include "compiler/task/task.h"
#include "records/tuning_log.h"
#include "tests/compiler/driver/model_check.h"
#include "tuner/tune/apply_history.h"

namespace tessera {
namespace {

const std::string& ModelDir() { return testing::OpModelsDir(); }

class ModelOpsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ModelOpsTest, MatchesReference) { testing::CheckModel(ModelDir(), GetParam(), 1e-4, 1e-5); }

INSTANTIATE_TEST_SUITE_P(Ops, ModelOpsTest, ::testing::ValuesIn(testing::OpModelNames()));

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

// Counts the kernels whose function name contains each of `parts`.
std::vector<int> CountKernels(const ModelBuild& build, const std::vector<std::string>& parts) {
  std::vector<int> counts(parts.size(), 0);
  for (const runtime::ExecNode& n : build.graph.nodes) {
    for (size_t i = 0; i < parts.size(); ++i) {
      counts[i] += n.function.find(parts[i]) != std::string::npos;
    }
  }
  return counts;
}

// Layouts change only where needed: the first convolution's epilogue writes the second one's
// blocked input, so only the model input is packed.
TEST(LayoutTest, ConvolutionFeedsConvolutionBlocked) {
  ModelBuild build = testing::CheckModel(ModelDir(), "conv_stem_strided", 1e-4, 1e-5);
  EXPECT_EQ(CountKernels(build, {"pack_NCHWc"})[0], 1);
}

// A residual chain stays blocked: values read by a convolution and a residual add, the max pool
// and the depthwise convolution keep NCHW16c, so the model input is the only layout change, and
// every convolution's bias, activation and residual add, and the Gemm's bias, run in its own
// kernel's output stage.
TEST(LayoutTest, ResidualBlocksStayBlocked) {
  ModelBuild build = testing::CheckModel(ModelDir(), "residual_blocks", 1e-4, 1e-5);
  // The input's pack; no unpack_NCHWc, repack_NCHWc.
  EXPECT_EQ(CountKernels(build, {"pack_NCHWc", "conv2d_NCHWc", "epilogue"}),
            (std::vector<int>{1, 6, 0}));
  EXPECT_EQ(build.graph.nodes.size(), 10u);
}

// Grouped convolutions run the blocked grouped template (not a plain compute), each reading its
// producer's blocked output; the model still matches PyTorch.
TEST(LayoutTest, GroupedConvolutionsRunTheirTemplate) {
  ModelBuild build = testing::CheckModel(ModelDir(), "grouped_bottleneck", 1e-4, 1e-5);
  EXPECT_EQ(CountKernels(build, {"group_conv2d_NCHWc"})[0], 3);
  int tasks = 0;
  for (const ModelTask& t : build.tasks) {
    tasks += t.workload_key.rfind("group_conv2d_NCHWc.x86(", 0) == 0;
  }
  EXPECT_EQ(tasks, 3);
}

// ShuffleNetV2 units: each concatenation and channel shuffle is one kernel with the slice that
// feeds it (no Reshape or Transpose kernel). Read by the next unit, it runs in the block its
// inputs are written in (`shuffle-blocked`, named by its concatenation), whether the block holds
// whole shuffle groups or splits them; the last, a graph output, runs as a plain compute (named
// by its slice). The model matches PyTorch either way.
TEST(LayoutTest, ChannelShufflesRunInTheirInputsBlocks) {
  struct Case {
    std::string target;
    std::vector<int64_t> shuffle_blocks;  // of the shuffle-blocked groups
    std::vector<int> kernels;             // Concat, Reshape, Transpose, Slice
  };
  // Generic x86 writes blocks of 2 channels (one shuffle group); AVX2 blocks of 29 (half a branch
  // of 58 channels), which split the groups.
  for (const Case& c :
       {Case{"llvm", {2, 2}, {2, 0, 0, 4}}, Case{"llvm -mcpu=x86-64-v3", {29, 29}, {2, 0, 0, 4}}}) {
    SCOPED_TRACE(c.target);
    ModelBuildOptions options;
    options.target = c.target;
    ModelBuild build = testing::CheckModel(ModelDir(), "shuffle_units", 1e-4, 1e-5, false, options);
    EXPECT_EQ(CountKernels(build, {"_Concat", "_Reshape", "_Transpose", "_Slice"}), c.kernels);
    const ModelPlan plan =
        PlanModel(frontend::ImportOnnx(ModelDir() + "/shuffle_units.onnx"), options);
    std::vector<int64_t> blocks;
    for (const GroupPlan& gp : plan.groups) {
      if (gp.path == KernelPath::kShuffleBlocked) blocks.push_back(gp.in_block);
    }
    EXPECT_EQ(blocks, c.shuffle_blocks);
  }
}

// Concatenations of blocked values stay blocked and copy whole vectors: DenseNet's pattern
// (the concatenation's batch norm and ReLU in the same kernel, the graph input packed to the
// block); the last concatenation, a graph output, writes it plain.
TEST(LayoutTest, ConcatenationsOfBlockedValuesStayBlocked) {
  ModelBuild build = testing::CheckModel(ModelDir(), "dense_concat", 1e-4, 1e-5);
  ModelBuildOptions options;
  std::ostringstream notices;
  options.warnings = &notices;
  const ModelPlan plan =
      PlanModel(frontend::ImportOnnx(ModelDir() + "/dense_concat.onnx"), options);
  int blocked = 0;
  for (const GroupPlan& gp : plan.groups) blocked += gp.path == KernelPath::kConcatBlocked;
  EXPECT_EQ(blocked, 2);
  // The input packed for the first convolution and for the concatenations; nothing else.
  EXPECT_EQ(CountKernels(build, {"pack_NCHWc", "repack_NCHWc", "unpack_NCHWc"}),
            (std::vector<int>{2, 0, 0}));
}

// Padded convolutions read their zero padding in place: the blocked form of every value a padded
// convolution reads is stored with the padding around it, written as zeros by its producer (the
// input's pack, convolutions with fused epilogues, the max pool), and the model still matches.
// Depthwise convolutions keep their own padding stage (in place, MobileNetV2 ran slower).
TEST(LayoutTest, PaddedConvolutionsReadTheirPaddingInPlace) {
  ModelBuild build = testing::CheckModel(ModelDir(), "residual_blocks", 1e-4, 1e-5);
  graph::Graph g = frontend::ImportOnnx(ModelDir() + "/residual_blocks.onnx");
  graph::InferShapes(g);
  int padded_reads = 0, depthwise_reads = 0;
  for (const graph::Node& node : g.nodes) {
    if (node.op != "Conv") continue;
    const int64_t pad = node.Ints("pads", {0, 0, 0, 0}).at(0);
    if (pad == 0) continue;
    const graph::Value& x = g.values.at(node.inputs.at(0));
    ASSERT_EQ(x.shape.size(), 4u) << x.name;
    const bool depthwise = node.Int("group", 1) > 1;
    const int64_t halo = depthwise ? 0 : pad;
    int found = 0;
    for (const runtime::ExecTensor& t : build.graph.tensors) {
      if (t.name.rfind(x.name + "_NCHW", 0) != 0 || t.shape.size() != 5) continue;
      ++found;
      EXPECT_EQ(t.shape[2], x.shape[2] + 2 * halo) << t.name << " read by " << node.name;
      EXPECT_EQ(t.shape[3], x.shape[3] + 2 * halo) << t.name << " read by " << node.name;
    }
    EXPECT_EQ(found, 1) << node.name;
    ++(depthwise ? depthwise_reads : padded_reads);
  }
  EXPECT_GE(padded_reads, 3);
  EXPECT_EQ(depthwise_reads, 1);
}

// A record of `key` measured at `cost` seconds: the fallback's schedule with the innermost
// factors of these split knobs set (e.g. a channel block).
tuning::MeasureRecord SplitsRecord(const std::string& key, const std::string& target,
                                   const std::vector<std::pair<std::string, int64_t>>& splits,
                                   double cost) {
  task::Task task(key, target);
  space::ConfigEntity config = task.config_space().Fallback();
  for (const auto& [knob, factor] : splits) {
    config = task.config_space().WithSplitInner(config, knob, factor);
  }
  tuning::MeasureRecord r;
  r.set_workload_key(key);
  r.set_target(target);
  r.set_config_index(config.index());
  *r.mutable_config() = space::ConfigToProto(config);
  r.add_costs(cost);
  return r;
}

// The same with one split knob.
tuning::MeasureRecord SplitRecord(const std::string& key, const std::string& target,
                                  const std::string& knob, int64_t factor, double cost) {
  return SplitsRecord(key, target, {{knob, factor}}, cost);
}

// `model` built (and checked against its reference) with a fresh tuning log holding `records`,
// under `options` (its log and warnings are the helper's).
ModelBuild BuildWithRecords(const std::string& model,
                            const std::vector<tuning::MeasureRecord>& records,
                            ModelBuildOptions options = {}) {
  static int logs = 0;  // one file per build: a log reopened would hold earlier cases' records
  auto log = records::TuningLog::Open(testing::TempDir("records_" + model) + "/t" +
                                      std::to_string(++logs) + ".db");
  log->AppendBatch(records);
  const tuner::LogConfigSource configs(log.get());
  options.configs = &configs;
  std::ostringstream warnings;
  options.warnings = &warnings;
  return testing::CheckModel(ModelDir(), model, 1e-4, 1e-5, false, options);
}

// Extraction lists a Winograd task beside each direct 3x3 stride-1 convolution with an even
// output, so that tuning measures both; a build runs the Winograd kernel (weights transformed
// when the model is built) where its record is the faster one, and the direct kernel otherwise.
TEST(LayoutTest, AFasterWinogradRecordReplacesTheDirectConvolution) {
  ModelBuildOptions options;
  const std::vector<ModelTask> tasks =
      ExtractTasks(frontend::ImportOnnx(ModelDir() + "/residual_blocks.onnx"), options);
  int alternatives = 0, replaced_kernels = 0;
  for (const ModelTask& t : tasks) {
    if (t.alternative_to.empty()) continue;
    ++alternatives;
    replaced_kernels += t.weight;
    EXPECT_EQ(t.workload_key.rfind("conv2d_winograd_NCHWc.x86(", 0), 0u) << t.workload_key;
    auto direct = std::find_if(tasks.begin(), tasks.end(), [&](const ModelTask& d) {
      return d.workload_key == t.alternative_to;
    });
    ASSERT_NE(direct, tasks.end()) << t.alternative_to;
    EXPECT_EQ(direct->weight, t.weight);
    EXPECT_NE(direct->workload_key.find(",3,3,1,1,float32)"), std::string::npos);
  }
  EXPECT_EQ(alternatives, 2);  // the stem, and the two convolutions after the pooling
  EXPECT_EQ(replaced_kernels, 3);
  // Faster by less than its transformed weights' extra bytes at 10 GB/s (F(4x4): 27/9 of the
  // direct weights more; 5.5 and 11 us here) is not faster.
  for (auto [winograd_cost, faster] : std::vector<std::pair<double, bool>>{
           {0.5e-3, true}, {2e-3, false}, {1e-3 - 0.5e-5, false}, {1e-3 - 2e-5, true}}) {
    std::vector<tuning::MeasureRecord> records;
    for (const ModelTask& t : tasks) {
      records.push_back(SplitsRecord(t.workload_key, options.target, {},
                                     t.alternative_to.empty() ? 1e-3 : winograd_cost));
    }
    ModelBuild build = BuildWithRecords("residual_blocks", records);
    EXPECT_EQ(CountKernels(build, {"conv2d_winograd_NCHWc"})[0], faster ? 3 : 0) << winograd_cost;
    int winograd_configs = 0;
    for (const KernelConfig& c : build.configs) {
      winograd_configs += c.workload_key.rfind("conv2d_winograd", 0) == 0;
    }
    EXPECT_EQ(winograd_configs, faster ? 3 : 0);
    EXPECT_NE(build.CoverageLine().find("tuned 6/6 tasks"), std::string::npos)
        << build.CoverageLine();
  }
}

// A record of another template version measured other code: the build takes the fallback for
// its workload and the coverage line says why. Records written before versions count as
// version 1, the version of every template today.
TEST(LayoutTest, ARecordOfAnotherTemplateVersionIsNotUsed) {
  ModelBuildOptions options;
  const std::vector<ModelTask> tasks =
      ExtractTasks(frontend::ImportOnnx(ModelDir() + "/residual_blocks.onnx"), options);
  std::string stale_key;  // a direct workload without a Winograd alternative
  for (const ModelTask& t : tasks) {
    const bool replaceable = std::any_of(tasks.begin(), tasks.end(), [&](const ModelTask& w) {
      return w.alternative_to == t.workload_key;
    });
    if (t.alternative_to.empty() && !replaceable && stale_key.empty()) stale_key = t.workload_key;
  }
  ASSERT_FALSE(stale_key.empty());
  std::vector<tuning::MeasureRecord> records;
  for (const ModelTask& t : tasks) {
    records.push_back(
        SplitsRecord(t.workload_key, options.target, {}, t.alternative_to.empty() ? 1e-3 : 2e-3));
    if (t.workload_key == stale_key) records.back().set_template_version(2);
  }
  const std::string line = BuildWithRecords("residual_blocks", records).CoverageLine();
  EXPECT_NE(line.find("tuned 5/6 tasks"), std::string::npos) << line;
  EXPECT_NE(
      line.find("; untuned: " + stale_key + " (records of template version 2, this build has 1)"),
      std::string::npos)
      << line;
}

// A convolution tuned to read blocks of one channel reads the plain input itself: NCHW1c is
// NCHW, so the build makes a view instead of a pack kernel.
TEST(LayoutTest, OneChannelBlocksReadThePlainTensor) {
  ModelBuildOptions options;
  std::vector<tuning::MeasureRecord> records;
  for (const ModelTask& t :
       ExtractTasks(frontend::ImportOnnx(ModelDir() + "/conv_stem_strided.onnx"), options)) {
    if (t.workload_key.rfind("conv2d_NCHWc.x86(1,3,", 0) != 0) continue;
    records.push_back(SplitRecord(t.workload_key, options.target, "tile_ic", 1, 1e-3));
  }
  ASSERT_EQ(records.size(), 1u);
  ModelBuild build = BuildWithRecords("conv_stem_strided", records);
  EXPECT_EQ(CountKernels(build, {"pack_NCHWc", "conv2d_NCHWc"}), (std::vector<int>{0, 2}));
}

// Tuned records rarely read the block their producer writes; a build then takes the best record's
// schedule with the producer's input block, so the residual chain stays as blocked and fused as
// with fallback configs. Here every record's blocks disagree with every producer's.
TEST(LayoutTest, TunedBuildKeepsTheProducersBlock) {
  ModelBuildOptions options;
  const graph::Graph g = frontend::ImportOnnx(ModelDir() + "/residual_blocks.onnx");
  std::vector<tuning::MeasureRecord> records;
  for (const ModelTask& t : ExtractTasks(g, options)) {
    task::Task task(t.workload_key, options.target);
    tuning::Config config = space::ConfigToProto(task.config_space().Fallback());
    for (tuning::KnobValue& knob : *config.mutable_knobs()) {
      // Input blocks of 8, output blocks of 32 (the fallback: 16 and 16).
      const int64_t block = knob.name() == "tile_oc" ? 32 : 8;
      if (knob.name() != "tile_ic" && knob.name() != "tile_oc" && knob.name() != "tile_c") continue;
      knob.set_ints(1, block);
    }
    tuning::MeasureRecord r;
    r.set_workload_key(t.workload_key);
    r.set_target(options.target);
    r.set_config_index(space::ConfigFromProto(task.config_space(), config).index());
    *r.mutable_config() = config;
    r.add_costs(1e-3);
    records.push_back(r);
  }
  ModelBuild build = BuildWithRecords("residual_blocks", records);
  EXPECT_EQ(CountKernels(build, {"pack_NCHWc", "epilogue", "conv2d_NCHWc"}),
            (std::vector<int>{1, 0, 6}));  // the input's pack only (the Gemm's bias is fused)
  EXPECT_EQ(build.graph.nodes.size(), 10u);
  EXPECT_NE(build.CoverageLine().find("tuned 6/6 tasks"), std::string::npos)
      << build.CoverageLine();
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
    // Blocks of one input channel: no producer writes those.
    records.push_back(SplitRecord(t.workload_key, options.target, "tile_ic", 1, 1e-3));
    ++convolutions;
  }
  ASSERT_EQ(convolutions, 4);
  ModelBuild build = BuildWithRecords("residual_blocks", records);
  const std::vector<int> kernels = CountKernels(build, {"pack_NCHWc", "epilogue"});
  const int transforms = kernels[0], epilogues = kernels[1];
  int tuned = 0;
  for (const ModelTask& t : build.tasks) tuned += t.tuned;
  EXPECT_EQ(tuned, convolutions);
  // None: the first convolution's one-channel blocks read the model input in place (the
  // fallback's blocks need the input's pack, as in ResidualBlocksStayBlocked).
  EXPECT_EQ(transforms, 0);
  EXPECT_EQ(epilogues, 0);  // the Gemm's bias is fused into dense.x86
  EXPECT_EQ(build.graph.nodes.size(), 9u);
}

// The channel block of the first kernel whose graph nodes include `node` (its output's last
// dimension; 0 for a plain output).
int64_t OutputBlockOf(const ModelBuild& build, const std::string& node) {
  for (const runtime::ExecNode& n : build.graph.nodes) {
    if (n.name.find(node) == std::string::npos) continue;
    const std::vector<int64_t>& shape = build.graph.tensors[n.outputs[0]].shape;
    return shape.size() == 5 ? shape[4] : 0;
  }
  ADD_FAILURE() << "no kernel computes " << node;
  return -1;
}

// The two convolutions a residual add joins (a block's last one and its strided downsample) take
// the same output block when a record within the build's tolerance has it, so that the add reads
// both in whole vectors; a record further off is not taken for it. Each one's best record has
// another block, and whichever is planned second adapts.
TEST(LayoutTest, ResidualPartnersShareTheirOutputBlock) {
  for (double same_block_cost : {1.05e-3, 2e-3}) {
    ModelBuildOptions options;
    const std::string main_key = "conv2d_NCHWc.x86(1,32,4,4,64,1,1,1,0,float32)";
    const std::string downsample_key = "conv2d_NCHWc.x86(1,16,8,8,64,1,1,2,0,float32)";
    ModelBuild build = BuildWithRecords(
        "downsample_block",
        {SplitRecord(main_key, options.target, "tile_oc", 16, 1e-3),
         SplitRecord(main_key, options.target, "tile_oc", 32, same_block_cost),
         SplitRecord(downsample_key, options.target, "tile_oc", 32, 1e-3),
         SplitRecord(downsample_key, options.target, "tile_oc", 16, same_block_cost)});
    const int64_t main_block = OutputBlockOf(build, "conv_cb");
    const int64_t downsample_block = OutputBlockOf(build, "conv_cd");
    if (same_block_cost < 1.1e-3) {
      EXPECT_EQ(main_block, downsample_block);
    } else {
      EXPECT_EQ(main_block, 16);
      EXPECT_EQ(downsample_block, 32);
    }
  }
}

// A convolution whose best record reads another block than its producer writes takes a record of
// the producer's block only within the build's tolerance of the best when its data fits in L2;
// beyond, the best record adapted to that block (an allowance of one pass over the data, 0.16 µs
// here, took the 20% slower record).
// `ModelBuild::configs` says which config each kernel runs and where it came from.
TEST(LayoutTest, ARecordOfTheProducersBlockIsTakenOnlyWithinTolerance) {
  for (double wanted_cost : {1.05e-6, 1.2e-6}) {
    ModelBuildOptions options;
    // conv_stem_strided: a 7×7 stride-2 convolution (3 → 8 channels, 32×32 → 16×16), then a
    // 1×1 stride-2 one (8 → 16 channels, 8×8 out) reading it.
    const std::string producer_key = "conv2d_NCHWc.x86(1,3,32,32,8,7,7,2,3,float32)";
    const std::string reader_key = "conv2d_NCHWc.x86(1,8,16,16,16,1,1,2,0,float32)";
    // The producer writes blocks of 8; the reader's best record reads blocks of 4 in rows of 8
    // columns, its record of the producer's block rows of 2.
    ModelBuild build = BuildWithRecords(
        "conv_stem_strided",
        {SplitsRecord(producer_key, options.target, {{"tile_oc", 8}}, 1e-6),
         SplitsRecord(reader_key, options.target, {{"tile_ic", 4}, {"tile_ow", 8}}, 1e-6),
         SplitsRecord(reader_key, options.target, {{"tile_ic", 8}, {"tile_ow", 2}}, wanted_cost)});
    ASSERT_EQ(build.configs.size(), 2u);
    EXPECT_EQ(build.configs[0].source, "record");
    const KernelConfig& reader = build.configs[1];
    EXPECT_EQ(reader.workload_key, reader_key);
    if (wanted_cost < 1.1e-6) {
      EXPECT_EQ(reader.source, "record");
      EXPECT_NE(reader.config.find("tile_ow=sp[-1,2]"), std::string::npos) << reader.config;
    } else {
      EXPECT_EQ(reader.source, "record, input blocks of 8");
      EXPECT_NE(reader.config.find("tile_ow=sp[-1,8]"), std::string::npos) << reader.config;
    }
    EXPECT_NE(reader.config.find("tile_ic=sp[-1,8]"), std::string::npos) << reader.config;
  }
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
