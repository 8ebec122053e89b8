#include "compiler/graph/fold_quantize_pairs.h"

#include <algorithm>
#include <map>

#include "compiler/graph/dce.h"

namespace tessera {
namespace graph {
namespace {

// The same parameter: one value, two constants holding the same elements, or both omitted.
bool SameParam(const Graph& g, int a, int b) {
  if (a == b) return true;
  if (a < 0 || b < 0 || !g.values[a].is_constant() || !g.values[b].is_constant()) return false;
  const TensorData& x = *g.values[a].data;
  const TensorData& y = *g.values[b].data;
  return x.dtype == y.dtype && x.NumElements() == y.NumElements() && x.bytes == y.bytes;
}

bool SamePair(const Graph& g, const Node& quantize, const Node& dequantize) {
  return SameParam(g, quantize.Input(1), dequantize.Input(1)) &&
         SameParam(g, quantize.Input(2), dequantize.Input(2)) &&
         quantize.Int("axis", 1) == dequantize.Int("axis", 1);
}

}  // namespace

void FoldQuantizePairs(Graph& g) {
  const std::vector<int> producer = g.Producers();
  // The first pair folded for each QuantizeLinear: a value quantized once and dequantized for
  // each of its readers (as PyTorch exports them) is one node, so that its producer's kernel
  // can still take it.
  std::map<int, int> folded;  // QuantizeLinear node -> the QuantizeDequantize's output
  for (Node& node : g.nodes) {
    if (node.op != "DequantizeLinear" || node.inputs.empty() || node.inputs[0] < 0) continue;
    const int p = producer[node.inputs[0]];
    if (p < 0 || g.nodes[p].op != "QuantizeLinear") continue;
    const Node& quantize = g.nodes[p];
    if (!SamePair(g, quantize, node)) continue;
    auto first = folded.find(p);
    const bool is_output =
        std::find(g.outputs.begin(), g.outputs.end(), node.outputs[0]) != g.outputs.end();
    if (first != folded.end() && !is_output) {
      g.ReplaceUses(node.outputs[0], first->second);
      continue;  // left without readers: dead code
    }
    folded[p] = node.outputs[0];
    node.op = "QuantizeDequantize";
    node.inputs = quantize.inputs;
    node.attrs = quantize.attrs;
  }
  EliminateDeadCode(g);
}

}  // namespace graph
}  // namespace tessera
