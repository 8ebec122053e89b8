// Graph passes on small hand-built graphs: the graph before and after each pass.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/graph/dce.h"
#include "compiler/graph/fold_batch_norm.h"
#include "compiler/graph/fold_constants.h"
#include "compiler/graph/fold_patterns.h"
#include "compiler/graph/fuse_ops.h"
#include "compiler/graph/graph.h"
#include "compiler/graph/infer.h"
#include "compiler/graph/pipeline.h"
#include "compiler/graph/simplify.h"
#include "compiler/support/error.h"

namespace tessera {
namespace graph {
namespace {

using ::testing::HasSubstr;

int Input(Graph& g, const std::string& name, std::vector<int64_t> shape) {
  Value v;
  v.name = name;
  v.shape = std::move(shape);
  int id = g.AddValue(v);
  g.inputs.push_back(id);
  return id;
}

int Const(Graph& g, const std::string& name, std::vector<int64_t> shape, double fill,
          DType dtype = DType::kFloat32) {
  auto t = TensorData::Zeros(dtype, shape);
  for (int64_t i = 0; i < t->NumElements(); ++i) t->Set(i, fill + i);
  return g.AddConstant(name, t);
}

int Add(Graph& g, const std::string& op, std::vector<int> inputs,
        std::map<std::string, Attr> attrs = {}) {
  Value v;
  v.name = g.UniqueName(op);
  int out = g.AddValue(v);
  Node n;
  n.op = op;
  n.name = op + std::to_string(g.nodes.size());
  n.inputs = std::move(inputs);
  n.outputs = {out};
  n.attrs = std::move(attrs);
  g.nodes.push_back(n);
  return out;
}

Attr Ints(std::vector<int64_t> v) {
  Attr a;
  a.kind = Attr::kInts;
  a.ints = std::move(v);
  return a;
}

std::vector<std::string> Ops(const Graph& g) {
  std::vector<std::string> ops;
  for (const Node& n : g.nodes) ops.push_back(n.op);
  return ops;
}

TEST(GraphPassesTest, FoldConstantsComputesShapesAtCompileTime) {
  Graph g;
  int x = Input(g, "x", {2, 3, 4});
  int shape = Add(g, "Shape", {x});
  int d0 = Add(g, "Gather", {shape, Const(g, "zero", {}, 0, DType::kInt64)});
  int d0u = Add(g, "Unsqueeze", {d0, Const(g, "axes", {1}, 0, DType::kInt64)});
  int target = Add(g, "Concat", {d0u, Const(g, "m1", {1}, -1, DType::kInt64)}, {{"axis", Attr{}}});
  int y = Add(g, "Reshape", {x, target});
  g.outputs = {y};
  FoldConstants(g);
  EXPECT_EQ(Ops(g), std::vector<std::string>{"Reshape"});
  EXPECT_EQ(g.values[g.outputs[0]].shape, (std::vector<int64_t>{2, 12}));
  EXPECT_THAT(ToText(g), HasSubstr("Reshape(%x:float32<2x3x4>, const %Concat:int64<2>)"));
}

TEST(GraphPassesTest, SimplifyBypassesNoOps) {
  Graph g;
  int x = Input(g, "x", {2, 3});
  int a = Add(g, "Identity", {x});
  int b = Add(g, "Dropout", {a});
  int c = Add(g, "Reshape", {b, Const(g, "same", {2}, 2, DType::kInt64)});  // [2, 3]
  int y = Add(g, "Relu", {c});
  g.outputs = {y};
  InferShapes(g);
  Simplify(g);
  ASSERT_EQ(Ops(g), std::vector<std::string>{"Relu"});
  EXPECT_EQ(g.values[g.nodes[0].inputs[0]].name, "x");
}

TEST(GraphPassesTest, DeadCodeGoes) {
  Graph g;
  int x = Input(g, "x", {4});
  Add(g, "Exp", {x});
  int y = Add(g, "Relu", {x});
  g.outputs = {y};
  EliminateDeadCode(g);
  EXPECT_EQ(Ops(g), std::vector<std::string>{"Relu"});
}

TEST(GraphPassesTest, BatchNormFoldsIntoConvolution) {
  Graph g;
  int x = Input(g, "x", {1, 2, 4, 4});
  int w = Const(g, "w", {3, 2, 1, 1}, 1);
  int conv = Add(g, "Conv", {x, w});
  int bn = Add(g, "BatchNormalization",
               {conv, Const(g, "s", {3}, 2), Const(g, "b", {3}, 1), Const(g, "m", {3}, 0.5),
                Const(g, "v", {3}, 3)});
  int y = Add(g, "Relu", {bn});
  g.outputs = {y};
  InferShapes(g);
  FoldBatchNorm(g);
  ASSERT_EQ(Ops(g), (std::vector<std::string>{"Conv", "Relu"}));
  const Node& c = g.nodes[0];
  ASSERT_EQ(c.inputs.size(), 3u);
  // Channel 1: scale 3 / sqrt(4 + 1e-5), weights 3 and 4, shift 2 - 1.5 * scale.
  double scale = 3 / std::sqrt(4 + 1e-5);
  EXPECT_NEAR(g.values[c.inputs[1]].data->At(2), 3 * scale, 1e-5);
  EXPECT_NEAR(g.values[c.inputs[2]].data->At(1), 2 - 1.5 * scale, 1e-5);
}

TEST(GraphPassesTest, LoneBatchNormBecomesScaleAndShift) {
  Graph g;
  int x = Input(g, "x", {1, 3, 2, 2});
  int bn = Add(g, "BatchNormalization",
               {x, Const(g, "s", {3}, 1), Const(g, "b", {3}, 0), Const(g, "m", {3}, 0),
                Const(g, "v", {3}, 1)});
  g.outputs = {bn};
  InferShapes(g);
  FoldBatchNorm(g);
  EXPECT_EQ(Ops(g), (std::vector<std::string>{"Mul", "Add"}));
}

TEST(GraphPassesTest, FusionMakesConvolutionEpilogues) {
  Graph g;
  int x = Input(g, "x", {1, 2, 4, 4});
  int skip = Input(g, "skip", {1, 3, 4, 4});
  int conv = Add(g, "Conv", {x, Const(g, "w", {3, 2, 1, 1}, 1)});
  int sum = Add(g, "Add", {conv, skip});
  int relu = Add(g, "Relu", {sum});
  int pool = Add(g, "MaxPool", {relu}, {{"kernel_shape", Ints({2, 2})}});
  g.outputs = {pool, relu};
  InferShapes(g);
  FuseOps(g);
  // Relu's output is also a graph output: the pool does not join, but Add and Relu do.
  EXPECT_EQ(g.nodes[1].group, g.nodes[0].group);
  EXPECT_EQ(g.nodes[2].group, g.nodes[0].group);
  EXPECT_NE(g.nodes[3].group, g.nodes[0].group);
}

TEST(GraphPassesTest, SimplifyTurnsTransposesOfUnitDimensionsIntoReshapes) {
  Graph g;
  int x = Input(g, "x", {1, 8, 6});
  int moved = Add(g, "Transpose", {x}, {{"perm", Ints({1, 0, 2})}});        // only the 1 moves
  int swapped = Add(g, "Transpose", {moved}, {{"perm", Ints({2, 1, 0})}});  // 8 and 6 swap
  g.outputs = {Add(g, "Relu", {swapped})};
  InferShapes(g);
  Simplify(g);
  EXPECT_EQ(Ops(g), (std::vector<std::string>{"Reshape", "Transpose", "Relu"}));
  EXPECT_EQ(g.values[g.nodes[0].outputs[0]].shape, (std::vector<int64_t>{8, 1, 6}));
  EXPECT_EQ(g.values[g.nodes[0].inputs[1]].data->AsInts(), (std::vector<int64_t>{8, 1, 6}));
}

// x * 0.5 * (1 + erf(x / sqrt(2))), as torch.onnx.export writes nn.GELU at opset 13.
int DecomposedGelu(Graph& g, int x) {
  int erf = Add(g, "Erf", {Add(g, "Div", {x, Const(g, "sqrt2", {}, M_SQRT2)})});
  int term = Add(g, "Add", {erf, Const(g, "one", {}, 1)});
  return Add(g, "Mul", {Add(g, "Mul", {x, term}), Const(g, "half", {}, 0.5)});
}

TEST(GraphPassesTest, DecomposedGeluBecomesOneNode) {
  Graph g;
  int x = Input(g, "x", {2, 4});
  g.outputs = {Add(g, "Relu", {DecomposedGelu(g, Add(g, "Exp", {x}))})};
  InferShapes(g);
  FoldPatterns(g);
  EXPECT_EQ(Ops(g), (std::vector<std::string>{"Exp", "Gelu", "Relu"}));
  EXPECT_EQ(g.nodes[1].inputs[0], g.nodes[0].outputs[0]);
}

TEST(GraphPassesTest, GeluWithAnIntermediateReadElsewhereStays) {
  Graph g;
  int x = Input(g, "x", {2, 4});
  int gelu = DecomposedGelu(g, x);
  int erf = g.nodes[1].outputs[0];
  g.outputs = {gelu, erf};
  InferShapes(g);
  FoldPatterns(g);
  EXPECT_EQ(Ops(g).size(), 5u);
}

// LayerNorm over the last axis as torch.onnx.export writes it at opset 13 (epsilon 1e-5).
int DecomposedLayerNorm(Graph& g, int x, int64_t width) {
  std::map<std::string, Attr> last = {{"axes", Ints({-1})}};
  int mean = Add(g, "ReduceMean", {x}, last);
  int centred = Add(g, "Sub", {x, mean});
  int var = Add(g, "ReduceMean", {Add(g, "Pow", {centred, Const(g, "two", {}, 2)})}, last);
  int stddev = Add(g, "Sqrt", {Add(g, "Add", {var, Const(g, "eps", {}, 1e-5)})});
  int norm = Add(g, "Div", {centred, stddev});
  int scaled = Add(g, "Mul", {norm, Const(g, "gamma", {width}, 1)});
  return Add(g, "Add", {scaled, Const(g, "beta", {width}, 0.5)});
}

TEST(GraphPassesTest, DecomposedLayerNormBecomesOneNode) {
  Graph g;
  int x = Input(g, "x", {1, 3, 8});
  g.outputs = {DecomposedLayerNorm(g, x, 8)};
  InferShapes(g);
  FoldPatterns(g);
  ASSERT_EQ(Ops(g), (std::vector<std::string>{"LayerNormalization"}));
  const Node& ln = g.nodes[0];
  EXPECT_EQ(ln.inputs[0], x);
  EXPECT_EQ(g.values[ln.inputs[1]].name, "gamma");
  EXPECT_EQ(g.values[ln.inputs[2]].name, "beta");
  EXPECT_EQ(ln.Int("axis", 0), 2);
  EXPECT_NEAR(ln.Float("epsilon", 0), 1e-5, 1e-12);
}

TEST(GraphPassesTest, NormalizationOverLeadingAxesStays) {
  Graph g;
  int x = Input(g, "x", {4, 8});
  std::map<std::string, Attr> first = {{"axes", Ints({0})}};
  int mean = Add(g, "ReduceMean", {x}, first);
  int centred = Add(g, "Sub", {x, mean});
  int var = Add(g, "ReduceMean", {Add(g, "Pow", {centred, Const(g, "two", {}, 2)})}, first);
  int stddev = Add(g, "Sqrt", {Add(g, "Add", {var, Const(g, "eps", {}, 1e-5)})});
  int scaled = Add(g, "Mul", {Add(g, "Div", {centred, stddev}), Const(g, "gamma", {8}, 1)});
  g.outputs = {Add(g, "Add", {scaled, Const(g, "beta", {8}, 0)})};
  InferShapes(g);
  FoldPatterns(g);
  EXPECT_EQ(Ops(g).size(), 9u);
}

TEST(GraphPassesTest, FusionMovesAttentionHeadsInOneKernel) {
  Graph g;
  int x = Input(g, "x", {4, 24});
  int proj = Add(g, "Relu", {x});
  int q = Add(g, "Slice",
              {proj, Const(g, "start", {1}, 0, DType::kInt64),
               Const(g, "end", {1}, 8, DType::kInt64), Const(g, "axis", {1}, 1, DType::kInt64)});
  auto shape = TensorData::Zeros(DType::kInt64, {3});
  for (int64_t d = 0; d < 3; ++d) shape->Set(d, std::vector<double>{4, 2, 4}[d]);
  int heads = Add(g, "Reshape", {q, g.AddConstant("shape", shape)});
  int moved = Add(g, "Transpose", {heads}, {{"perm", Ints({1, 0, 2})}});
  int scaled = Add(g, "Div", {moved, Const(g, "eight", {}, 8)});
  int dense = Add(g, "MatMul", {x, Const(g, "w", {24, 6}, 1)});
  int flat = Add(g, "Reshape", {dense, Const(g, "flat", {1}, 24, DType::kInt64)});
  g.outputs = {scaled, flat};
  InferShapes(g);
  FuseOps(g);
  // Relu, Slice, Reshape, Transpose and Div in one group; a reshape of a template's output
  // stays out of its group (its epilogue takes same-shape elementwise nodes only).
  for (size_t n = 1; n < 5; ++n) EXPECT_EQ(g.nodes[n].group, g.nodes[0].group) << n;
  EXPECT_NE(g.nodes[6].group, g.nodes[5].group);
}

// ShuffleNetV2's unit tail: the concatenation joins the slice that feeds it, and the channel
// shuffle (Reshape, Transpose, Reshape) joins the concatenation; one kernel instead of three.
TEST(GraphPassesTest, FusionRunsConcatAndChannelShuffleInOneKernel) {
  Graph g;
  int x = Input(g, "x", {1, 8, 3, 3});
  int branch = Input(g, "branch", {1, 4, 3, 3});
  int kept = Add(g, "Slice",
                 {x, Const(g, "start", {1}, 0, DType::kInt64),
                  Const(g, "end", {1}, 4, DType::kInt64), Const(g, "axis", {1}, 1, DType::kInt64)});
  Attr axis;
  axis.i = 1;
  int joined = Add(g, "Concat", {kept, branch}, {{"axis", axis}});
  joined = Add(g, "Concat", {joined, branch}, {{"axis", axis}});
  auto shape_of = [&](const std::string& name, std::vector<double> dims) {
    auto t = TensorData::Zeros(DType::kInt64, {static_cast<int64_t>(dims.size())});
    for (size_t d = 0; d < dims.size(); ++d) t->Set(static_cast<int64_t>(d), dims[d]);
    return g.AddConstant(name, t);
  };
  int pairs = Add(g, "Reshape", {joined, shape_of("pairs", {1, 2, 6, 3, 3})});
  int moved = Add(g, "Transpose", {pairs}, {{"perm", Ints({0, 2, 1, 3, 4})}});
  int shuffled = Add(g, "Reshape", {moved, shape_of("back", {1, 12, 3, 3})});
  g.outputs = {shuffled};
  InferShapes(g);
  FuseOps(g);
  for (size_t n = 1; n < g.nodes.size(); ++n) {
    EXPECT_EQ(g.nodes[n].group, g.nodes[0].group) << g.nodes[n].op << " " << n;
  }
}

// x * Sigmoid(x), in either order, becomes one Silu node that joins the convolution's epilogue;
// a Sigmoid with another reader stays (EfficientNet's squeeze-and-excitation scale).
TEST(GraphPassesTest, SiluBecomesOneNodeInTheConvolutionsEpilogue) {
  Graph g;
  int x = Input(g, "x", {1, 2, 4, 4});
  int conv = Add(g, "Conv", {x, Const(g, "w", {3, 2, 1, 1}, 1)});
  int gate = Add(g, "Sigmoid", {conv});
  int silu = Add(g, "Mul", {gate, conv});
  int scale = Add(g, "Sigmoid", {silu});
  int scaled = Add(g, "Mul", {silu, scale});
  int kept = Add(g, "Relu", {scale});
  g.outputs = {scaled, kept};
  InferShapes(g);
  FoldPatterns(g);
  EXPECT_EQ(Ops(g), (std::vector<std::string>{"Conv", "Silu", "Sigmoid", "Mul", "Relu"}));
  EXPECT_EQ(g.nodes[1].inputs, std::vector<int>{conv});
  FuseOps(g);
  EXPECT_EQ(g.nodes[1].group, g.nodes[0].group);
}

// PyTorch's opset-13 hardswish, x * HardSigmoid(x) with alpha 1/6 and beta 1/2, becomes one
// HardSwish node in the convolution's epilogue; another HardSigmoid (MobileNetV3's
// squeeze-and-excitation gate, alpha 1/6 of another value) stays.
TEST(GraphPassesTest, DecomposedHardSwishBecomesOneNode) {
  Graph g;
  int x = Input(g, "x", {1, 2, 4, 4});
  int conv = Add(g, "Conv", {x, Const(g, "w", {3, 2, 1, 1}, 1)});
  Attr sixth, half, fifth;
  sixth.kind = half.kind = fifth.kind = Attr::kFloat;
  sixth.f = 1.0 / 6;
  half.f = 0.5;
  fifth.f = 0.2;
  int gate = Add(g, "HardSigmoid", {conv}, {{"alpha", sixth}, {"beta", half}});
  int swish = Add(g, "Mul", {conv, gate});
  int other = Add(g, "HardSigmoid", {swish}, {{"alpha", fifth}});
  int kept = Add(g, "Mul", {swish, other});
  g.outputs = {kept};
  InferShapes(g);
  FoldPatterns(g);
  EXPECT_EQ(Ops(g), (std::vector<std::string>{"Conv", "HardSwish", "HardSigmoid", "Mul"}));
  FuseOps(g);
  EXPECT_EQ(g.nodes[1].group, g.nodes[0].group);
}

TEST(GraphPassesTest, PipelineShowsEveryPass) {
  Graph g;
  int x = Input(g, "x", {4});
  g.outputs = {Add(g, "Relu", {Add(g, "Identity", {x})})};
  std::vector<std::string> seen;
  OptimizeGraph(g, [&](const std::string& pass, const Graph&) { seen.push_back(pass); });
  EXPECT_EQ(seen.size(), GraphPasses().size());
  EXPECT_EQ(Ops(g), std::vector<std::string>{"Relu"});
}

TEST(GraphPassesTest, ErrorsNameTheNode) {
  Graph g;
  int a = Input(g, "a", {2, 3});
  int b = Input(g, "b", {4, 3});
  g.outputs = {Add(g, "Add", {a, b})};
  try {
    InferShapes(g);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("node 'Add0' (Add): shapes 2x3 and 4x3 do not broadcast"));
  }
  Graph cyc;
  int in = Input(cyc, "in", {1});
  Value loop;
  loop.name = "loop";
  int l = cyc.AddValue(loop);
  int s = Add(cyc, "Add", {in, l});
  cyc.nodes.back().outputs = {s};
  Node back;
  back.op = "Relu";
  back.name = "back";
  back.inputs = {s};
  back.outputs = {l};
  cyc.nodes.push_back(back);
  cyc.outputs = {s};
  try {
    cyc.SortTopologically();
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cycle"));
  }
}

}  // namespace
}  // namespace graph
}  // namespace tessera
