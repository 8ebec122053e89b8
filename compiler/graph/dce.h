/// \file
/// Dead-code elimination: nodes none of whose outputs is read go, then unused values.
#ifndef TESSERA_COMPILER_GRAPH_DCE_H_
#define TESSERA_COMPILER_GRAPH_DCE_H_

#include "compiler/graph/graph.h"

namespace tessera {
namespace graph {

/// Removes nodes whose outputs nothing reads (transitively) and compacts the values.
void EliminateDeadCode(Graph& g);

}  // namespace graph
}  // namespace tessera

#endif  // TESSERA_COMPILER_GRAPH_DCE_H_
