#include "compiler/graph/evaluate.h"

#include <algorithm>

#include "compiler/ops/op_def.h"

namespace tessera {
namespace graph {

std::vector<std::shared_ptr<TensorData>> EvaluateNode(const Graph& g, const Node& node) {
  const ops::OpDef* def = ops::FindOp(node.op);
  if (!def || !def->evaluate || node.outputs.size() != 1) return {};
  if (!def->evaluates_from_shapes) {
    for (int in : node.inputs) {
      if (in >= 0 && !g.values[in].is_constant()) return {};
    }
  }
  // A result no larger than the constant it is computed from (a weight's DequantizeLinear,
  // Transpose or Cast) folds at any size: it only replaces that constant.
  int64_t largest_input = 0;
  for (int in : node.inputs) {
    if (in >= 0 && g.values[in].is_constant()) {
      largest_input = std::max(largest_input, g.values[in].data->NumElements());
    }
  }
  const int64_t elements = NumElements(g.values[node.outputs[0]].shape);
  if (elements > kMaxFoldedElements && elements > largest_input) return {};
  return def->evaluate(g, node);
}

}  // namespace graph
}  // namespace tessera
