/// \file
/// Operator fusion: an elementwise node joins the group of the producer of its main input (same
/// shape) when that value has no other reader and is not a graph output; so does an injective
/// node (Transpose, Slice, Reshape, Squeeze, Unsqueeze, Flatten) through its data input when the
/// group is a plain compute. A group becomes one kernel (a convolution or dense with its
/// epilogue: bias, activation, residual add; a slice, transpose and scaling of attention heads).
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
