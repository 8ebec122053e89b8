#include "compiler/graph/expand_qlinear.h"

namespace tessera {
namespace graph {
namespace {

bool IsConstantInput(const Graph& g, const Node& node, size_t i) {
  const int v = node.Input(i);
  return v < 0 || g.values[v].is_constant();
}

// A new float value named after `base` and the node computing it.
int NewValue(Graph& g, const std::string& base) {
  Value v;
  v.name = g.UniqueName(base);
  return g.AddValue(v);
}

Node MakeNode(const std::string& op, const std::string& name, std::vector<int> inputs, int output) {
  Node n;
  n.op = op;
  n.name = name;
  n.inputs = std::move(inputs);
  n.outputs = {output};
  return n;
}

// The scale of a QLinearConv's int32 bias: input scale × weight scale, per output channel.
int BiasScale(Graph& g, const Node& conv, int x_scale, int w_scale) {
  const TensorData& xs = *g.values[x_scale].data;
  const TensorData& ws = *g.values[w_scale].data;
  auto scale = TensorData::Zeros(DType::kFloat32, ws.shape);
  for (int64_t k = 0; k < ws.NumElements(); ++k) {
    scale->Set(k, static_cast<float>(xs.At(0)) * static_cast<float>(ws.At(k)));
  }
  return g.AddConstant(conv.name + "_bias_scale", scale);
}

// The nodes replacing `node`: dequantizations of its operands (and bias), the float operator
// with its attributes, the quantization of its output.
std::vector<Node> Expand(Graph& g, const Node& node) {
  const bool conv = node.op == "QLinearConv";
  const std::string& name = node.name;
  std::vector<Node> out;
  auto dequantize = [&](size_t value, size_t scale, size_t zero, int64_t axis, const char* what) {
    const int v = NewValue(g, name + "_" + what);
    std::vector<int> inputs = {node.inputs[value], node.inputs[scale]};
    if (node.Input(zero) >= 0) inputs.push_back(node.inputs[zero]);
    out.push_back(MakeNode("DequantizeLinear", name + "_dequantize_" + what, inputs, v));
    out.back().attrs["axis"] = Attr::Int(axis);
    return v;
  };
  const int64_t w_rank = static_cast<int64_t>(g.values[node.inputs[3]].shape.size());
  std::vector<int> float_inputs = {dequantize(0, 1, 2, 1, "input"),
                                   dequantize(3, 4, 5, conv ? 0 : w_rank - 1, "weight")};
  if (conv && node.Input(8) >= 0) {
    const int v = NewValue(g, name + "_bias");
    const int scale = BiasScale(g, node, node.inputs[1], node.inputs[4]);
    out.push_back(
        MakeNode("DequantizeLinear", name + "_dequantize_bias", {node.inputs[8], scale}, v));
    out.back().attrs["axis"] = Attr::Int(0);
    float_inputs.push_back(v);
  }
  const int result = NewValue(g, name + "_float");
  out.push_back(MakeNode(conv ? "Conv" : "MatMul", name, float_inputs, result));
  if (conv) out.back().attrs = node.attrs;
  std::vector<int> q_inputs = {result, node.inputs[6]};
  if (node.Input(7) >= 0) q_inputs.push_back(node.inputs[7]);
  out.push_back(MakeNode("QuantizeLinear", name + "_quantize", q_inputs, node.outputs[0]));
  return out;
}

}  // namespace

void ExpandQLinear(Graph& g) {
  std::vector<Node> nodes;
  for (Node& node : g.nodes) {
    const bool qlinear = node.op == "QLinearConv" || node.op == "QLinearMatMul";
    bool constant = qlinear;
    for (size_t i = 1; constant && i < node.inputs.size(); ++i) {
      constant = IsConstantInput(g, node, i);
    }
    if (!constant) {
      nodes.push_back(std::move(node));
      continue;
    }
    for (Node& n : Expand(g, node)) nodes.push_back(std::move(n));
  }
  g.nodes = std::move(nodes);
}

}  // namespace graph
}  // namespace tessera
