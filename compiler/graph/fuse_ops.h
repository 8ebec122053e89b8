/// \file
/// Operator fusion: an elementwise node joins the group of the producer of its main input (same
/// shape) when that value has no other reader and is not a graph output; a group becomes one kernel
/// (a convolution or dense with its epilogue: bias, activation, residual add).
#ifndef TESSERA_COMPILER_GRAPH_FUSE_OPS_H_
#define TESSERA_COMPILER_GRAPH_FUSE_OPS_H_

#include "compiler/graph/graph.h"

namespace tessera {
namespace graph {

/// Sets `Node::group` for every node: groups are chains anchor → elementwise → ...
void FuseOps(Graph& g);

}  // namespace graph
}  // namespace tessera

#endif  // TESSERA_COMPILER_GRAPH_FUSE_OPS_H_
