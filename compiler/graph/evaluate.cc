#include "compiler/graph/evaluate.h"

#include "compiler/ops/op_def.h"

namespace tessera {
namespace graph {

std::vector<std::shared_ptr<TensorData>> EvaluateNode(const Graph& g, const Node& node) {
  const ops::OpDef* def = ops::FindOp(node.op);
  if (!def || !def->evaluate || node.outputs.size() != 1) return {};
  if (NumElements(g.values[node.outputs[0]].shape) > kMaxFoldedElements) return {};
  if (!def->evaluates_from_shapes) {
    for (int in : node.inputs) {
      if (in >= 0 && !g.values[in].is_constant()) return {};
    }
  }
  return def->evaluate(g, node);
}

}  // namespace graph
}  // namespace tessera
