#include "compiler/graph/simplify.h"

#include <algorithm>

#include "compiler/graph/dce.h"
#include "compiler/ops/movement.h"
#include "compiler/ops/op_def.h"

namespace tessera {
namespace graph {
namespace {

bool AllZero(const Graph& g, int id) {
  if (id < 0 || !g.values[id].is_constant()) return false;
  std::vector<int64_t> v = g.values[id].data->AsInts();
  return std::all_of(v.begin(), v.end(), [](int64_t x) { return x == 0; });
}

// The input a no-op node passes through unchanged, or -1.
int PassThrough(const Graph& g, const Node& node) {
  if (node.inputs.empty() || node.inputs[0] < 0) return -1;
  const Value& in = g.values[node.inputs[0]];
  const Value& out = g.values[node.outputs[0]];
  if (node.op == "Identity" || node.op == "Dropout") return node.inputs[0];
  bool same = in.shape == out.shape && in.dtype == out.dtype;
  if (ops::IsReshape(node.op) || node.op == "Cast") {
    return same ? node.inputs[0] : -1;
  }
  if (node.op == "Pad" && same && AllZero(g, node.inputs[1])) return node.inputs[0];
  return -1;
}

// A Transpose that moves only dimensions of size 1 (the batch-first to sequence-first transposes
// of a transformer at batch 1) keeps the elements in order: a reshape, which costs nothing.
bool IsReshapingTranspose(const Graph& g, const Node& node) {
  if (node.op != "Transpose" || node.inputs.empty() || node.inputs[0] < 0) return false;
  const auto& shape = g.values[node.inputs[0]].shape;
  std::vector<int64_t> perm = ops::TransposePerm(node, shape.size());
  int64_t last = -1;
  for (int64_t d : perm) {
    if (d < 0 || d >= static_cast<int64_t>(shape.size())) return false;
    if (shape[d] == 1) continue;
    if (d < last) return false;
    last = d;
  }
  return true;
}

}  // namespace

void Simplify(Graph& g) {
  for (Node& node : g.nodes) {
    if (!IsReshapingTranspose(g, node)) continue;
    const std::vector<int64_t>& out = g.values[node.outputs[0]].shape;
    auto shape = TensorData::Zeros(DType::kInt64, {static_cast<int64_t>(out.size())});
    for (size_t d = 0; d < out.size(); ++d) shape->Set(static_cast<int64_t>(d), out[d]);
    node.op = "Reshape";
    node.attrs.clear();
    node.inputs.resize(1);
    node.inputs.push_back(g.AddConstant(node.name + "_shape", shape));
  }
  std::vector<int> uses = g.UseCounts();
  std::vector<bool> is_output(g.values.size(), false);
  for (int out : g.outputs) is_output[out] = true;
  for (const Node& node : g.nodes) {
    if (is_output[node.outputs[0]]) continue;
    // Dropout's mask output (when read) has no inference-mode value to forward.
    if (node.op == "Dropout" && node.outputs.size() > 1 && uses[node.outputs[1]] > 0) continue;
    int source = PassThrough(g, node);
    if (source >= 0) g.ReplaceUses(node.outputs[0], source);
  }
  EliminateDeadCode(g);
}

}  // namespace graph
}  // namespace tessera
