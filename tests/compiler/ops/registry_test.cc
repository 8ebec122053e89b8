// The operator registry is consistent: every operator the ONNX importer accepts has a complete
// definition, and each fusion pattern agrees with what the operator's compute does.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "compiler/graph/infer.h"
#include "compiler/ops/op_def.h"
#include "compiler/te/schedule.h"

namespace tessera {
namespace {

using graph::DType;
using ops::OpDef;
using ops::Pattern;

// Operators without a run-time kernel, and why.
const std::map<std::string, std::string>& NoKernel() {
  static const std::map<std::string, std::string> ops = {
      {"Shape", "evaluated at compile time"},
      {"ConstantOfShape", "evaluated at compile time"},
      {"Range", "evaluated at compile time"},
      {"BatchNormalization", "rewritten by fold_batch_norm"},
  };
  return ops;
}

TEST(Registry, EveryImportedOperatorHasACompleteDefinition) {
  // The importer accepts exactly the operators UnsupportedReason knows (and Constant, which it
  // turns into a constant itself). Silu is Tessera's own (folded from x * Sigmoid(x)), and so is
  // QuantizeDequantize (a QuantizeLinear / DequantizeLinear pair).
  // clang-format off
  const std::vector<std::string> expected = {
      "Abs", "Add", "AveragePool", "BatchNormalization", "Cast", "Ceil", "Clip", "Concat", "Conv",
      "ConvInteger", "ConstantOfShape", "DequantizeLinear", "Div", "Dropout",
      "DynamicQuantizeLinear", "Equal", "Erf", "Exp", "Expand", "Flatten", "Floor",
      "Gather", "Gelu", "Gemm", "GlobalAveragePool", "Greater", "HardSigmoid", "HardSwish",
      "Identity", "LayerNormalization",
      "Less", "Log", "MatMul", "MatMulInteger", "Max", "MaxPool", "Min", "Mod", "Mul", "Neg", "Pad",
      "Pow", "QLinearConv", "QLinearMatMul", "QuantizeDequantize", "QuantizeLinear", "Range",
      "Reciprocal", "ReduceMax", "ReduceMean", "ReduceMin", "Relu", "Reshape", "Round", "Shape",
      "Sigmoid", "Silu", "Slice", "Softmax", "Split", "Sqrt", "Squeeze", "Sub", "Tanh",
      "Transpose", "Unsqueeze", "Where"};
  // clang-format on
  std::vector<std::string> sorted = expected;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(graph::SupportedOperators(), sorted);
  for (const std::string& op : graph::SupportedOperators()) {
    SCOPED_TRACE(op);
    const OpDef* def = ops::FindOp(op);
    ASSERT_NE(def, nullptr);
    EXPECT_EQ(def->name, op);
    EXPECT_TRUE(def->infer);
    graph::Node probe;
    probe.op = op;
    probe.outputs = {0};
    EXPECT_EQ(graph::UnsupportedReason(probe), "") << "default attributes are refused";
    if (NoKernel().count(op)) {
      EXPECT_FALSE(def->compute) << op << " is " << NoKernel().at(op);
      EXPECT_EQ(def->pattern, Pattern::kOpaque);
    } else {
      EXPECT_TRUE(def->compute) << "no run-time kernel";
    }
    if (def->reshape) {
      EXPECT_EQ(def->pattern, Pattern::kInjective);
    }
    EXPECT_EQ(graph::IsElementwise(op), def->pattern == Pattern::kElementwise);
  }
  EXPECT_EQ(ops::FindOp("Constant"), nullptr);
  EXPECT_EQ(graph::UnsupportedReason(graph::Node{"NoSuchOp"}),
            "operator NoSuchOp is not supported");
}

TEST(Registry, ShapeComputationsAreEvaluated) {
  for (const auto& [op, why] : NoKernel()) {
    if (op == "BatchNormalization") continue;
    EXPECT_TRUE(ops::FindOp(op)->evaluate) << op;
  }
  EXPECT_TRUE(ops::FindOp("Shape")->evaluates_from_shapes);
}

// One node of `op` over float inputs of `shapes` (constants where `constants` gives data;
// other types where `types` says), with its shapes inferred.
struct Example {
  std::string op;
  std::vector<std::vector<int64_t>> shapes;
  std::map<size_t, std::vector<int64_t>> constants;  // input -> int64 elements
  std::map<std::string, graph::Attr> attrs;
  std::map<size_t, DType> types = {};  // input -> element type (float32 where absent)
};

graph::Attr Int(int64_t v) {
  graph::Attr a;
  a.kind = graph::Attr::kInt;
  a.i = v;
  return a;
}

graph::Attr Ints(std::vector<int64_t> v) {
  graph::Attr a;
  a.kind = graph::Attr::kInts;
  a.ints = std::move(v);
  return a;
}

// A small example of every operator with a compute.
std::vector<Example> Examples() {
  constexpr DType kU8 = DType::kUInt8, kI8 = DType::kInt8;
  static const std::set<std::string> binary = {"Add",   "Sub",  "Mul",     "Div", "Pow",
                                               "Equal", "Less", "Greater", "Max", "Min"};
  const std::map<std::string, Example> special = {
      {"Where", {"Where", {{2, 3, 4, 4}, {2, 3, 4, 4}, {4}}, {}, {}}},
      {"Conv", {"Conv", {{1, 3, 8, 8}, {4, 3, 3, 3}}, {}, {}}},
      {"MaxPool", {"MaxPool", {{2, 3, 4, 4}}, {}, {{"kernel_shape", Ints({2, 2})}}}},
      {"AveragePool", {"AveragePool", {{2, 3, 4, 4}}, {}, {{"kernel_shape", Ints({2, 2})}}}},
      {"Gemm", {"Gemm", {{4, 5}, {5, 6}}, {}, {}}},
      {"MatMul", {"MatMul", {{2, 4, 5}, {5, 6}}, {}, {}}},
      {"LayerNormalization", {"LayerNormalization", {{2, 3, 4, 4}, {4}}, {}, {}}},
      {"Reshape", {"Reshape", {{2, 3, 4, 4}, {2}}, {{1, {6, 16}}}, {}}},
      {"Unsqueeze", {"Unsqueeze", {{2, 3, 4, 4}}, {}, {{"axes", Ints({0})}}}},
      {"Squeeze", {"Squeeze", {{1, 3, 4, 4}}, {}, {}}},
      {"Expand", {"Expand", {{3, 1, 4}, {3}}, {{1, {3, 2, 4}}}, {}}},
      {"Slice", {"Slice", {{2, 3, 4, 4}, {1}, {1}}, {{1, {1}}, {2, {3}}}, {}}},
      {"Pad", {"Pad", {{2, 3}, {4}}, {{1, {0, 1, 0, 1}}}, {}}},
      {"Concat", {"Concat", {{2, 3, 4, 4}, {2, 3, 4, 4}}, {}, {}}},
      {"Gather", {"Gather", {{5, 4}, {3}}, {{1, {0, 4, 2}}}, {}}},
      {"Mod", {"Mod", {{2, 3, 4, 4}, {4}}, {}, {{"fmod", Int(1)}}}},
      {"QuantizeLinear", {"QuantizeLinear", {{2, 3, 4, 4}, {}, {}}, {}, {}, {{2, kU8}}}},
      {"QuantizeDequantize", {"QuantizeDequantize", {{2, 3, 4, 4}, {3}, {3}}, {}, {}, {{2, kI8}}}},
      {"DequantizeLinear",
       {"DequantizeLinear", {{2, 3, 4, 4}, {3}, {3}}, {}, {}, {{0, kI8}, {2, kI8}}}},
      {"ConvInteger", {"ConvInteger", {{1, 3, 8, 8}, {4, 3, 3, 3}}, {}, {}, {{0, kU8}, {1, kI8}}}},
      {"MatMulInteger", {"MatMulInteger", {{2, 4, 5}, {5, 6}}, {}, {}, {{0, kU8}, {1, kI8}}}},
      {"QLinearConv",
       {"QLinearConv",
        {{1, 3, 8, 8}, {}, {}, {4, 3, 3, 3}, {4}, {4}, {}, {}, {4}},
        {},
        {},
        {{0, kU8}, {2, kU8}, {3, kI8}, {5, kI8}, {7, kU8}, {8, DType::kInt32}}}},
      {"QLinearMatMul",
       {"QLinearMatMul",
        {{2, 4, 5}, {}, {}, {5, 6}, {6}, {6}, {}, {}},
        {},
        {},
        {{0, kU8}, {2, kU8}, {3, kI8}, {5, kI8}, {7, kI8}}}},
  };
  std::vector<Example> out;
  for (const OpDef* def : ops::AllOps()) {
    if (!def->compute) continue;
    const std::string& op = def->name;
    auto it = special.find(op);
    if (it != special.end()) {
      out.push_back(it->second);
    } else if (binary.count(op)) {
      out.push_back({op, {{2, 3, 4, 4}, {4}}, {}, {}});
    } else {
      out.push_back({op, {{2, 3, 4, 4}}, {}, {}});
    }
  }
  return out;
}

// Builds the example's graph and computes its node.
te::Tensor Compute(const Example& e, graph::Graph& g) {
  graph::Node node;
  node.op = e.op;
  node.name = "n";
  node.attrs = e.attrs;
  std::vector<ops::Operand> operands;
  for (size_t i = 0; i < e.shapes.size(); ++i) {
    graph::Value v;
    v.name = "in" + std::to_string(i);
    v.shape = e.shapes[i];
    if (e.types.count(i)) v.dtype = e.types.at(i);
    auto c = e.constants.find(i);
    if (c != e.constants.end()) {
      auto data = graph::TensorData::Zeros(DType::kInt64, v.shape);
      for (size_t k = 0; k < c->second.size(); ++k) data->Set(k, c->second[k]);
      v.dtype = DType::kInt64;
      v.data = data;
    }
    node.inputs.push_back(g.AddValue(v));
    std::vector<ir::Expr> shape;
    for (int64_t d : v.shape) shape.push_back(ir::IntImm(ir::DataType::Int(32), d));
    operands.push_back(
        {te::placeholder(shape, ops::KernelType(v.dtype), v.name), ir::Expr(), v.shape});
  }
  graph::Value out;
  out.name = "out";
  node.outputs.push_back(g.AddValue(out));
  g.nodes.push_back(node);
  graph::InferNode(g, g.nodes.back());
  return ops::FindOp(e.op)->compute(g, g.nodes.back(), operands, 0);
}

TEST(Registry, FusionPatternsAgreeWithComputes) {
  std::set<Pattern> seen;
  for (const Example& e : Examples()) {
    SCOPED_TRACE(e.op);
    graph::Graph g;
    te::Tensor t = Compute(e, g);
    const std::vector<int64_t>& shape = g.values[g.nodes[0].outputs[0]].shape;
    ASSERT_EQ(t.shape().size(), shape.size()) << "the compute's rank differs from inference's";
    for (size_t d = 0; d < shape.size(); ++d) {
      EXPECT_EQ(*ir::AsConstInt(t.shape()[d]), shape[d]) << "axis " << d;
    }
    bool reduces = false;
    for (const te::Operation& op : te::PostOrderOps({t.op()})) {
      if (op->type_name() != std::string("ComputeOp")) continue;
      reduces = reduces || !static_cast<const te::ComputeOpNode*>(op.get())->reduce_axis.empty();
    }
    const Pattern p = ops::FindOp(e.op)->pattern;
    seen.insert(p);
    // Elementwise and injective operators join other groups' kernels, inlined: no reduction.
    if (p == Pattern::kElementwise || p == Pattern::kInjective) {
      EXPECT_FALSE(reduces);
    }
    // Anchors of reductions and templates reduce.
    if (p == Pattern::kReduction || p == Pattern::kComplexOutFusable) {
      EXPECT_TRUE(reduces);
    }
  }
  EXPECT_EQ(seen.size(), 5u);
}

}  // namespace
}  // namespace tessera
