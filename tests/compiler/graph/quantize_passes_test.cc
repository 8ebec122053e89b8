// The quantization passes on small hand-built graphs: QDQ pairs folded into one node, the
// operator form expanded into the QDQ form, and weights dequantized at compile time.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/graph/expand_qlinear.h"
#include "compiler/graph/fold_constants.h"
#include "compiler/graph/fold_quantize_pairs.h"
#include "compiler/graph/fuse_ops.h"
#include "compiler/graph/graph.h"
#include "compiler/graph/pipeline.h"

namespace tessera {
namespace graph {
namespace {

int Input(Graph& g, const std::string& name, std::vector<int64_t> shape,
          DType dtype = DType::kFloat32) {
  Value v;
  v.name = name;
  v.shape = std::move(shape);
  v.dtype = dtype;
  int id = g.AddValue(v);
  g.inputs.push_back(id);
  return id;
}

int Const(Graph& g, const std::string& name, std::vector<int64_t> shape, double fill,
          DType dtype = DType::kFloat32) {
  auto t = TensorData::Zeros(dtype, shape);
  for (int64_t i = 0; i < t->NumElements(); ++i) t->Set(i, fill);
  return g.AddConstant(name, t);
}

int Add(Graph& g, const std::string& op, std::vector<int> inputs) {
  Value v;
  v.name = g.UniqueName(op);
  int out = g.AddValue(v);
  Node n;
  n.op = op;
  n.name = op + std::to_string(g.nodes.size());
  n.inputs = std::move(inputs);
  n.outputs = {out};
  g.nodes.push_back(n);
  return out;
}

std::vector<std::string> Ops(const Graph& g) {
  std::vector<std::string> ops;
  for (const Node& n : g.nodes) ops.push_back(n.op);
  return ops;
}

// Relu → QuantizeLinear → DequantizeLinear (same scale and zero point, as separate constants)
// → Relu.
Graph QdqChain(double dequantize_scale) {
  Graph g;
  int x = Input(g, "x", {1, 4});
  int r = Add(g, "Relu", {x});
  int q =
      Add(g, "QuantizeLinear", {r, Const(g, "s", {}, 0.5), Const(g, "z", {}, 3, DType::kUInt8)});
  int dq = Add(g, "DequantizeLinear",
               {q, Const(g, "s2", {}, dequantize_scale), Const(g, "z2", {}, 3, DType::kUInt8)});
  g.outputs = {Add(g, "Relu", {dq})};
  return g;
}

TEST(QuantizePassesTest, APairBecomesOneNodeInItsProducersKernel) {
  Graph g = QdqChain(0.5);
  FoldConstants(g);
  FoldQuantizePairs(g);
  EXPECT_EQ(Ops(g), (std::vector<std::string>{"Relu", "QuantizeDequantize", "Relu"}));
  FuseOps(g);
  EXPECT_EQ(g.nodes[0].group, g.nodes[1].group);
  EXPECT_EQ(g.nodes[1].group, g.nodes[2].group);
}

TEST(QuantizePassesTest, APairOfDifferentScalesStays) {
  Graph g = QdqChain(0.25);
  FoldConstants(g);
  FoldQuantizePairs(g);
  EXPECT_EQ(Ops(g),
            (std::vector<std::string>{"Relu", "QuantizeLinear", "DequantizeLinear", "Relu"}));
}

// QLinearConv(x, 0.5, 128, w = 2, [0.25, 0.25], [0, 0], 1.0, 128, bias = 8) over a uint8 input.
Graph QLinearConvGraph(bool constant_weights) {
  Graph g;
  int x = Input(g, "x", {1, 1, 4, 4}, DType::kUInt8);
  int w = constant_weights ? Const(g, "w", {2, 1, 3, 3}, 2, DType::kInt8)
                           : Input(g, "w", {2, 1, 3, 3}, DType::kInt8);
  g.outputs = {
      Add(g, "QLinearConv",
          {x, Const(g, "xs", {}, 0.5), Const(g, "xz", {}, 128, DType::kUInt8), w,
           Const(g, "ws", {2}, 0.25), Const(g, "wz", {2}, 0, DType::kInt8), Const(g, "ys", {}, 1.0),
           Const(g, "yz", {}, 128, DType::kUInt8), Const(g, "b", {2}, 8, DType::kInt32)})};
  return g;
}

TEST(QuantizePassesTest, QLinearConvWithConstantWeightsBecomesItsQdqForm) {
  Graph g = QLinearConvGraph(true);
  ExpandQLinear(g);
  EXPECT_EQ(Ops(g), (std::vector<std::string>{"DequantizeLinear", "DequantizeLinear",
                                              "DequantizeLinear", "Conv", "QuantizeLinear"}));
  FoldConstants(g);
  // The weights and the bias fold: w = 2 × 0.25, bias = 8 × (0.5 × 0.25).
  EXPECT_EQ(Ops(g), (std::vector<std::string>{"DequantizeLinear", "Conv", "QuantizeLinear"}));
  const Node& conv = g.nodes[1];
  EXPECT_FLOAT_EQ(g.values[conv.inputs[1]].data->At(0), 0.5f);
  EXPECT_FLOAT_EQ(g.values[conv.inputs[2]].data->At(1), 1.0f);
  EXPECT_EQ(g.values[g.outputs[0]].dtype, DType::kUInt8);
}

TEST(QuantizePassesTest, QLinearConvWithRunTimeWeightsStaysInteger) {
  Graph g = QLinearConvGraph(false);
  OptimizeGraph(g);
  EXPECT_EQ(Ops(g), std::vector<std::string>{"QLinearConv"});
}

// PyTorch's quantized linear layer: MatMul(x, Transpose(DequantizeLinear(W int8 [n, k], per
// output channel))). The transposed weights keep their integers, transposed, and the scale's
// axis follows the output channels to axis 1.
TEST(QuantizePassesTest, ATransposedWeightKeepsItsIntegers) {
  Graph g;
  int x = Input(g, "x", {2, 3});
  auto w = TensorData::Zeros(DType::kInt8, {2, 3});  // W[n, k] = 10 n + k
  for (int64_t i = 0; i < 6; ++i) w->Set(i, static_cast<double>(i / 3 * 10 + i % 3));
  auto scale = TensorData::Zeros(DType::kFloat32, {2});
  scale->Set(0, 0.5);
  scale->Set(1, 0.25);
  int dq = Add(
      g, "DequantizeLinear",
      {g.AddConstant("w", w), g.AddConstant("ws", scale), Const(g, "wz", {2}, 0, DType::kInt8)});
  g.nodes.back().attrs["axis"] = Attr::Int(0);
  int t = Add(g, "Transpose", {dq});
  Attr perm;
  perm.kind = Attr::kInts;
  perm.ints = {1, 0};
  g.nodes.back().attrs["perm"] = perm;
  g.outputs = {Add(g, "MatMul", {x, t})};
  FoldConstants(g);
  ASSERT_EQ(Ops(g), std::vector<std::string>{"MatMul"});
  const TensorData& b = *g.values[g.nodes[0].inputs[1]].data;
  ASSERT_TRUE(b.quantized);
  const QuantizedForm& q = *b.quantized;
  EXPECT_EQ(q.values->shape, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(q.axis, 1);
  for (int64_t k = 0; k < 3; ++k) {
    for (int64_t n = 0; n < 2; ++n) {
      EXPECT_EQ(q.values->At(k * 2 + n), 10 * n + k) << "k " << k << " n " << n;
      EXPECT_FLOAT_EQ(b.At(k * 2 + n), (10 * n + k) * (n == 0 ? 0.5 : 0.25));
    }
  }
}

}  // namespace
}  // namespace graph
}  // namespace tessera
