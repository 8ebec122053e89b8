#include "compiler/graph/fuse_ops.h"

#include "compiler/graph/infer.h"
#include "compiler/ops/op_def.h"

namespace tessera {
namespace graph {
namespace {

// Operators that only move elements (each output element is one input element).
bool IsInjective(const std::string& op) { return ops::HasPattern(op, ops::Pattern::kInjective); }

// Operators whose output can take an elementwise epilogue inside their kernel.
bool CanAnchor(const std::string& op) {
  const ops::OpDef* def = ops::FindOp(op);
  return def && def->pattern != ops::Pattern::kOpaque;
}

// Template operators: their groups take only same-shape elementwise epilogues.
bool IsTemplate(const std::string& op) {
  return ops::HasPattern(op, ops::Pattern::kComplexOutFusable);
}

}  // namespace

void FuseOps(Graph& g) {
  std::vector<int> uses = g.UseCounts();
  std::vector<bool> is_output(g.values.size(), false);
  for (int out : g.outputs) is_output[out] = true;
  std::vector<int> producer = g.Producers();
  std::vector<bool> group_open;   // the group's last node's output may still take an epilogue
  std::vector<bool> group_plain;  // the group is a plain compute (no template anchor)
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    Node& node = g.nodes[n];
    node.group = -1;
    const bool elementwise =
        IsElementwise(node.op) && g.values[node.outputs[0]].dtype == DType::kFloat32;
    // An injective node (the slices, reshapes and transposes that split a transformer's
    // projections into heads) joins a plain group through its data input: one kernel moves the
    // elements where a kernel per node copied them one more time each.
    const bool injective = IsInjective(node.op) && node.outputs.size() == 1;
    if (elementwise || injective) {
      const Value& out = g.values[node.outputs[0]];
      const size_t candidates = injective ? 1 : node.inputs.size();
      for (size_t k = 0; k < candidates; ++k) {
        const int in = node.inputs[k];
        if (in < 0 || producer[in] < 0) continue;
        const Value& v = g.values[in];
        const Node& p = g.nodes[producer[in]];
        if ((elementwise && v.shape != out.shape) || v.dtype != out.dtype || uses[in] != 1 ||
            is_output[in] || p.outputs.size() != 1 || !group_open[p.group] || !CanAnchor(p.op) ||
            ((injective || IsInjective(p.op)) && !group_plain[p.group])) {
          continue;
        }
        node.group = p.group;
        break;
      }
    }
    if (node.group < 0) {
      node.group = static_cast<int>(group_open.size());
      group_open.push_back(CanAnchor(node.op) && node.outputs.size() == 1);
      group_plain.push_back(!IsTemplate(node.op));
    }
  }
}

}  // namespace graph
}  // namespace tessera
