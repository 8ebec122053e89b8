/// \file
/// Simplification: Identity, Dropout (inference), and Reshape, Flatten, Squeeze, Unsqueeze, Cast
/// and Pad that change nothing are bypassed; a Transpose that moves only dimensions of size 1
/// becomes a Reshape (free: a view of the same buffer).
#ifndef TESSERA_COMPILER_GRAPH_SIMPLIFY_H_
#define TESSERA_COMPILER_GRAPH_SIMPLIFY_H_

#include "compiler/graph/graph.h"

namespace tessera {
namespace graph {

/// Bypasses no-op nodes (not those producing a graph output, whose name must stay).
void Simplify(Graph& g);

}  // namespace graph
}  // namespace tessera

#endif  // TESSERA_COMPILER_GRAPH_SIMPLIFY_H_
