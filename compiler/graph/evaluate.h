/// \file
/// Evaluation of nodes on constant inputs at compile time (the shape computations of exported
/// models: Shape, Gather, Concat, Unsqueeze, arithmetic on small tensors, ...).
#ifndef TESSERA_COMPILER_GRAPH_EVALUATE_H_
#define TESSERA_COMPILER_GRAPH_EVALUATE_H_

#include <memory>
#include <vector>

#include "compiler/graph/graph.h"

namespace tessera {
namespace graph {

/// Largest constant (in elements) that folding creates from smaller ones; bigger results stay
/// run-time kernels.
constexpr int64_t kMaxFoldedElements = 1 << 20;

/// The outputs of `node` computed from its inputs, whose shapes are inferred and which are all
/// constants (except for `Shape`, which needs only the input's shape); empty when the operator
/// is not evaluated at compile time or the result would be too large.
std::vector<std::shared_ptr<TensorData>> EvaluateNode(const Graph& g, const Node& node);

}  // namespace graph
}  // namespace tessera

#endif  // TESSERA_COMPILER_GRAPH_EVALUATE_H_
