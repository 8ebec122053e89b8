#include "compiler/graph/fold_constants.h"

#include "compiler/graph/dce.h"
#include "compiler/graph/evaluate.h"
#include "compiler/graph/infer.h"

namespace tessera {
namespace graph {

void FoldConstants(Graph& g) {
  std::vector<Node> kept;
  for (Node& node : g.nodes) {
    InferNode(g, node);
    std::vector<std::shared_ptr<TensorData>> results = EvaluateNode(g, node);
    if (results.empty()) {
      kept.push_back(std::move(node));
      continue;
    }
    for (size_t i = 0; i < results.size(); ++i) g.values[node.outputs[i]].data = results[i];
  }
  g.nodes = std::move(kept);
  EliminateDeadCode(g);
}

}  // namespace graph
}  // namespace tessera
