/// \file
/// Constant folding: nodes whose inputs are all constants (and Shape, which reads only a shape)
/// become constants, interleaved with shape inference so that shapes computed by the model become
/// static.
#ifndef TESSERA_COMPILER_GRAPH_FOLD_CONSTANTS_H_
#define TESSERA_COMPILER_GRAPH_FOLD_CONSTANTS_H_

#include "compiler/graph/graph.h"

namespace tessera {
namespace graph {

/// Infers every node's shapes and folds what can be computed at compile time.
void FoldConstants(Graph& g);

}  // namespace graph
}  // namespace tessera

#endif  // TESSERA_COMPILER_GRAPH_FOLD_CONSTANTS_H_
