#include "compiler/graph/fuse_ops.h"

#include "compiler/graph/infer.h"

namespace tessera {
namespace graph {
namespace {

// Operators whose output can take an elementwise epilogue inside their kernel.
bool CanAnchor(const std::string& op) {
  return IsElementwise(op) || op == "Conv" || op == "Gemm" || op == "MatMul" || op == "MaxPool" ||
         op == "AveragePool" || op == "GlobalAveragePool" || op == "ReduceMean" ||
         op == "Softmax" || op == "LayerNormalization";
}

}  // namespace

void FuseOps(Graph& g) {
  std::vector<int> uses = g.UseCounts();
  std::vector<bool> is_output(g.values.size(), false);
  for (int out : g.outputs) is_output[out] = true;
  std::vector<int> producer = g.Producers();
  std::vector<bool> group_open;  // the group's last node's output may still take an epilogue
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    Node& node = g.nodes[n];
    node.group = -1;
    if (IsElementwise(node.op) && g.values[node.outputs[0]].dtype == DType::kFloat32) {
      const Value& out = g.values[node.outputs[0]];
      for (int in : node.inputs) {
        if (in < 0 || producer[in] < 0) continue;
        const Value& v = g.values[in];
        const Node& p = g.nodes[producer[in]];
        if (v.shape != out.shape || v.dtype != out.dtype || uses[in] != 1 || is_output[in] ||
            p.outputs.size() != 1 || !group_open[p.group] || !CanAnchor(p.op)) {
          continue;
        }
        node.group = p.group;
        break;
      }
    }
    if (node.group < 0) {
      node.group = static_cast<int>(group_open.size());
      group_open.push_back(CanAnchor(node.op) && node.outputs.size() == 1);
    }
  }
}

}  // namespace graph
}  // namespace tessera
