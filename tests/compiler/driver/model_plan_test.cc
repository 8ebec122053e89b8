// The printed plan of a model build (`tessera compile --print-plan`), pinned for a small CNN and
// a small encoder on a CPU with a fixed vector width and on a GPU.
#include "compiler/driver/model_plan.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "compiler/frontend/onnx/onnx_importer.h"
#include "tests/compiler/driver/model_check.h"

namespace tessera {
namespace {

// AVX2 (8 floats a vector) whatever machine runs the test: fallback configs and blocks follow it.
const char kCPU[] = "llvm -mcpu=x86-64-v3";

ModelPlan Plan(const std::string& model, const std::string& target) {
  ModelBuildOptions options;
  options.target = target;
  std::ostringstream warnings;  // fallback notices
  options.warnings = &warnings;
  return PlanModel(frontend::ImportOnnx(testing::OpModelsDir() + "/" + model + ".onnx"), options);
}

// Convolutions chained blocked (the max pool and the depthwise convolution in the block their
// producers write), epilogues fused into the templates' output stages, the input packed once
// with the halo its first convolution reads in place.
TEST(ModelPlanTest, SmallCNN) {
  const ModelPlan plan = Plan("residual_blocks", kCPU);
  EXPECT_EQ(plan.ToText(), R"plan(plan for 'llvm -mcpu=x86-64-v3': 9 groups
g0 conv_c0+Relu  conv2d_NCHWc.x86(1,16,16,16,32,3,3,1,1,float32) [fallback] in=NCHW8c in-halo out=NCHW16c fused [tile_ic=sp[-1,8], tile_oc=sp[-1,16], tile_oh=sp[-1,1], tile_ow=sp[-1,4], unroll_kw=ot(1), border_rows=ot(1), image_acc=ot(0)]
g1 maxpool_h  pool-blocked in=NCHW16c out=NCHW16c halo=1
g2 conv_c1+Relu  conv2d_NCHWc.x86(1,32,8,8,32,3,3,1,1,float32) [fallback, input blocks of 16] in=NCHW16c in-halo out=NCHW16c halo=1 fused [tile_ic=sp[-1,16], tile_oc=sp[-1,16], tile_oh=sp[-1,1], tile_ow=sp[-1,4], unroll_kw=ot(1), border_rows=ot(1), image_acc=ot(0)]
g3 conv_c2+Add+Relu  conv2d_NCHWc.x86(1,32,8,8,32,3,3,1,1,float32) [fallback, input blocks of 16] in=NCHW16c in-halo out=NCHW16c fused [tile_ic=sp[-1,16], tile_oc=sp[-1,16], tile_oh=sp[-1,1], tile_ow=sp[-1,4], unroll_kw=ot(1), border_rows=ot(1), image_acc=ot(0)]
g4 conv_ce+Clip  conv2d_NCHWc.x86(1,32,8,8,64,1,1,1,0,float32) [fallback, input blocks of 16] in=NCHW16c out=NCHW16c fused [tile_ic=sp[-1,16], tile_oc=sp[-1,16], tile_oh=sp[-1,1], tile_ow=sp[-1,4], unroll_kw=ot(0), border_rows=ot(0), image_acc=ot(0)]
g5 conv_cd+Clip  depthwise_conv2d_NCHWc.x86(1,64,8,8,3,3,1,1,float32) [fallback, input blocks of 16] in=NCHW16c out=NCHW16c fused [tile_c=sp[-1,16], tile_oh=sp[-1,1], tile_ow=sp[-1,8], pad_inline=ot(1)]
g6 conv_cp+Add  conv2d_NCHWc.x86(1,64,8,8,32,1,1,1,0,float32) [fallback, input blocks of 16] in=NCHW16c out=NCHW16c fused [tile_ic=sp[-1,16], tile_oc=sp[-1,16], tile_oh=sp[-1,1], tile_ow=sp[-1,4], unroll_kw=ot(0), border_rows=ot(0), image_acc=ot(0)]
g7 globalaveragepool_g+Flatten  plain view=NCHW16c out=plain
g8 gemm_y  dense.x86(1,10,32,float32) [fallback] out=plain fused [tile_y=sp[-1,1,1], tile_x=sp[-1,1,10], tile_k=sp[-1,4], unroll_k=ot(1), k_outer=ot(0), prefetch=ot(1)]
blocked values:
  x: NCHW8c(halo 1) plain
  s: NCHW16c
  h: NCHW16c(halo 1)
  r1: NCHW16c(halo 1)
  h1: NCHW16c
  e: NCHW16c
  d: NCHW16c
  h2: NCHW16c
tasks:
  conv2d_NCHWc.x86(1,16,16,16,32,3,3,1,1,float32) x1 untuned
  conv2d_winograd_NCHWc.x86(1,16,16,16,32,1,float32) x1 untuned (alternative to conv2d_NCHWc.x86(1,16,16,16,32,3,3,1,1,float32))
  conv2d_NCHWc.x86(1,32,8,8,32,3,3,1,1,float32) x2 untuned
  conv2d_winograd_NCHWc.x86(1,32,8,8,32,1,float32) x2 untuned (alternative to conv2d_NCHWc.x86(1,32,8,8,32,3,3,1,1,float32))
  conv2d_NCHWc.x86(1,32,8,8,64,1,1,1,0,float32) x1 untuned
  depthwise_conv2d_NCHWc.x86(1,64,8,8,3,3,1,1,float32) x1 untuned
  conv2d_NCHWc.x86(1,64,8,8,32,1,1,1,0,float32) x1 untuned
  dense.x86(1,10,32,float32) x1 untuned
)plan");
}

// Matrix products through dense.x86 and batch_matmul.x86, everything else plain.
TEST(ModelPlanTest, SmallEncoder) {
  const ModelPlan plan = Plan("attention_block", kCPU);
  EXPECT_EQ(plan.ToText(), R"plan(plan for 'llvm -mcpu=x86-64-v3': 14 groups
g0 matmul_q  dense.x86(10,24,16,float32) [fallback] out=plain [tile_y=sp[-1,5,2], tile_x=sp[-1,1,24], tile_k=sp[-1,4], unroll_k=ot(1), k_outer=ot(0), prefetch=ot(1)]
g1 reshape_q4+Transpose  plain out=plain
g2 transpose_hT  plain out=plain
g3 matmul_s+Div  batch_matmul.x86(4,5,5,12,float32) [fallback] out=plain [tile_y=sp[-1,4], tile_x=sp[-1,5], tile_k=sp[-1,4]]
g4 softmax_p  plain out=plain
g5 matmul_ctx4  batch_matmul.x86(4,5,12,5,float32) [fallback] out=plain [tile_y=sp[-1,4], tile_x=sp[-1,12], tile_k=sp[-1,1]]
g6 transpose_ctxT+Reshape  plain out=plain
g7 reducemean_mu  plain out=plain
g8 sub_d  plain out=plain
g9 pow_d2  plain out=plain
g10 reducemean_v+Add+Sqrt  plain out=plain
g11 div_ln+Gelu  plain out=plain
g12 sigmoid_sg  plain out=plain
g13 tanh_th+Add  plain out=plain
blocked values:
tasks:
  dense.x86(10,24,16,float32) x1 untuned
  batch_matmul.x86(4,5,5,12,float32) x1 untuned
  batch_matmul.x86(4,5,12,5,float32) x1 untuned
)plan");
}

// A GPU runs NCHW: its convolution and dense templates, no blocked values.
TEST(ModelPlanTest, SmallCNNOnGPU) {
  const ModelPlan plan = Plan("residual_blocks", "cuda -arch=sm_80");
  EXPECT_EQ(plan.ToText(), R"plan(plan for 'cuda -arch=sm_80': 9 groups
g0 conv_c0+Relu  conv2d_nchw.cuda(1,16,16,16,32,3,3,1,1,float32) [fallback] out=plain [tile_f=sp[-1,4,2], tile_y=sp[-1,2,2], tile_x=sp[-1,4,2], tile_rc=sp[-1,2], auto_unroll=ot(0)]
g1 maxpool_h  plain out=plain
g2 conv_c1+Relu  conv2d_nchw.cuda(1,32,8,8,32,3,3,1,1,float32) [fallback] out=plain [tile_f=sp[-1,4,2], tile_y=sp[-1,2,2], tile_x=sp[-1,4,2], tile_rc=sp[-1,2], auto_unroll=ot(0)]
g3 conv_c2+Add+Relu  conv2d_nchw.cuda(1,32,8,8,32,3,3,1,1,float32) [fallback] out=plain [tile_f=sp[-1,4,2], tile_y=sp[-1,2,2], tile_x=sp[-1,4,2], tile_rc=sp[-1,2], auto_unroll=ot(0)]
g4 conv_ce+Clip  conv2d_nchw.cuda(1,32,8,8,64,1,1,1,0,float32) [fallback] out=plain [tile_f=sp[-1,4,2], tile_y=sp[-1,2,2], tile_x=sp[-1,4,2], tile_rc=sp[-1,2], auto_unroll=ot(0)]
g5 conv_cd+Clip  depthwise_conv2d.cuda(1,64,8,8,3,3,1,1,float32) [fallback] out=plain [tile_y=sp[-1,8,1], tile_x=sp[-1,8,1], auto_unroll=ot(0)]
g6 conv_cp+Add  conv2d_nchw.cuda(1,64,8,8,32,1,1,1,0,float32) [fallback] out=plain [tile_f=sp[-1,4,2], tile_y=sp[-1,2,2], tile_x=sp[-1,4,2], tile_rc=sp[-1,2], auto_unroll=ot(0)]
g7 globalaveragepool_g+Flatten  plain out=plain
g8 gemm_y  dense.cuda(1,10,32,float32) [fallback] out=plain [tile_y=sp[-1,1,1], tile_x=sp[-1,5,2], tile_k=sp[-1,8], vec_load=ot(1), auto_unroll=ot(0)]
blocked values:
tasks:
  conv2d_nchw.cuda(1,16,16,16,32,3,3,1,1,float32) x1 untuned
  conv2d_nchw.cuda(1,32,8,8,32,3,3,1,1,float32) x2 untuned
  conv2d_nchw.cuda(1,32,8,8,64,1,1,1,0,float32) x1 untuned
  depthwise_conv2d.cuda(1,64,8,8,3,3,1,1,float32) x1 untuned
  conv2d_nchw.cuda(1,64,8,8,32,1,1,1,0,float32) x1 untuned
  dense.cuda(1,10,32,float32) x1 untuned
)plan");
}

int Occurrences(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// 64-bit Arm runs the blocked layouts too, through the Arm templates only: direct convolutions
// through conv2d_NCHWc.arm with each pixel's channels loaded as one vector (lane_loads), blocks
// sized for NEON's 4 lanes, depthwise ones through depthwise_conv2d_NCHWc.arm.
TEST(ModelPlanTest, SmallCNNOnArm) {
  const std::string text =
      Plan("residual_blocks", "llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a76").ToText();
  auto count = [&](const std::string& what) { return Occurrences(text, what); };
  EXPECT_EQ(count(".x86("), 0) << text;
  EXPECT_EQ(count(" conv2d_NCHWc.arm(1,32,8,8,32,3,3,1,1,float32) ["), 2) << text;
  EXPECT_EQ(count("lane_loads=ot(1)"), 5) << text;  // every direct convolution of the model
  EXPECT_EQ(count("unroll_kw=ot(0)"), 5) << text;
  EXPECT_EQ(count("depthwise_conv2d_NCHWc.arm(1,64,8,8,3,3,1,1,float32) x1"), 1) << text;
  EXPECT_EQ(count("tile_oh=sp[-1,1], tile_ow=sp[-1,8], pad_inline=ot(1)]"), 1) << text;
  EXPECT_NE(text.find("tile_oc=sp[-1,8]"), std::string::npos) << text;  // two NEON vectors
  EXPECT_EQ(count("conv2d_winograd_NCHWc.arm("), 2) << text;  // the 3x3 layers' alternatives
  EXPECT_EQ(count(" dense.arm(1,10,32,float32) [fallback]"), 1) << text;
}

// An encoder on Arm: its products through dense.arm and batch_matmul.arm, the reduction's inner
// loop in unrolled fours where k allows (a row's four values of A as one vector for lane-indexed
// multiply-adds), tiles of 2 NEON vectors of columns.
TEST(ModelPlanTest, SmallEncoderOnArm) {
  const std::string text =
      Plan("attention_block", "llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a76").ToText();
  auto count = [&](const std::string& what) { return Occurrences(text, what); };
  EXPECT_EQ(count(".x86("), 0) << text;
  EXPECT_EQ(count(" dense.arm(10,24,16,float32) [fallback]"), 1) << text;
  EXPECT_EQ(count(" batch_matmul.arm(4,5,5,12,float32) [fallback]"), 1) << text;
  EXPECT_EQ(count("tile_x=sp[-1,1,8], tile_k=sp[-1,4], unroll_k=ot(1)"), 1) << text;
  EXPECT_EQ(count("tile_y=sp[-1,5], tile_x=sp[-1,5], tile_k=sp[-1,4], unroll_k=ot(1)]"), 1) << text;
  EXPECT_EQ(count("tile_y=sp[-1,5], tile_x=sp[-1,8], tile_k=sp[-1,1], unroll_k=ot(1)]"), 1) << text;
}

// The task list of a model is its plan's.
TEST(ModelPlanTest, ExtractTasksIsThePlansTaskList) {
  ModelBuildOptions options;
  options.target = kCPU;
  std::ostringstream warnings;
  options.warnings = &warnings;
  const std::vector<ModelTask> tasks =
      ExtractTasks(frontend::ImportOnnx(testing::OpModelsDir() + "/residual_blocks.onnx"), options);
  const ModelPlan plan = Plan("residual_blocks", kCPU);
  ASSERT_EQ(tasks.size(), plan.tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) {
    EXPECT_EQ(tasks[i].workload_key, plan.tasks[i].workload_key);
    EXPECT_EQ(tasks[i].weight, plan.tasks[i].weight);
  }
}

// One MatMul of a [1, k] input by constant [k, n] weights.
graph::Graph MatMulModel(int64_t k, int64_t n) {
  graph::Graph g;
  graph::Value x;
  x.name = "x";
  x.shape = {1, k};
  const int input = g.AddValue(x);
  g.inputs.push_back(input);
  const int weights = g.AddConstant("w", graph::TensorData::Zeros(graph::DType::kFloat32, {k, n}));
  graph::Value y;
  y.name = "y";
  const int output = g.AddValue(y);
  graph::Node matmul;
  matmul.op = "MatMul";
  matmul.name = "matmul";
  matmul.inputs = {input, weights};
  matmul.outputs = {output};
  g.nodes.push_back(matmul);
  g.outputs = {output};
  return g;
}

// A model whose weights outgrow the target's cache (`TargetHardware::cache_bytes`: 8 MB on x86,
// 1 MB on a Raspberry Pi 4's cortex-a72) reads them from memory on every run: its tasks are
// tuned with cold weights.
TEST(ModelPlanTest, WeightsBeyondTheTargetsCacheAreTunedCold) {
  ModelBuildOptions options;
  std::ostringstream warnings;
  options.warnings = &warnings;
  auto cold = [&](int64_t k, int64_t n, const std::string& target) {
    options.target = target;
    const std::vector<ModelTask> tasks = ExtractTasks(MatMulModel(k, n), options);
    EXPECT_EQ(tasks.size(), 1u) << k << "x" << n << " on " << target;
    return !tasks.empty() && tasks[0].cold_weights;
  };
  const std::string a72 = "llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72";
  EXPECT_FALSE(cold(256, 256, kCPU));      // 256 KB
  EXPECT_FALSE(cold(1024, 512, kCPU));     // 2 MB
  EXPECT_TRUE(cold(1024, 512, a72));       // 2 MB on a board of 1 MB
  EXPECT_TRUE(cold(1536, 2048, kCPU));     // 12 MB
  EXPECT_FALSE(cold(1536, 2048, "cuda"));  // a GPU's kernels are timed as they are
}

}  // namespace
}  // namespace tessera
