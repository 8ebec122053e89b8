/// \file
/// Shape and type inference for the operators of the graph IR (static shapes), and the list of
/// supported operators with the attribute values they accept: each operator's `ops::OpDef`.
#ifndef TESSERA_COMPILER_GRAPH_INFER_H_
#define TESSERA_COMPILER_GRAPH_INFER_H_

#include <string>
#include <vector>

#include "compiler/graph/graph.h"
#include "compiler/graph/shape.h"  // BroadcastShapes, NormalizeAxis (declared here before)

namespace tessera {
namespace graph {

/// The operator types the graph compiler supports, sorted.
const std::vector<std::string>& SupportedOperators();

/// True for operators computing each output element from the same element of its (broadcast)
/// inputs: unary and binary math, Where, Cast.
bool IsElementwise(const std::string& op);

/// Why `node` cannot be compiled (an unknown operator or an attribute value it does not
/// support), or "" when it can.
std::string UnsupportedReason(const Node& node);

/// Sets the dtype and shape of `node`'s outputs from its inputs. Operators whose output shape is
/// given by an input (Reshape, Expand, Slice, ...) need that input to be a constant. Throws
/// `UserError` naming the node and the tensors for inconsistent shapes or types.
void InferNode(Graph& g, const Node& node);

/// `InferNode` on every node, in order.
void InferShapes(Graph& g);

}  // namespace graph
}  // namespace tessera

#endif  // TESSERA_COMPILER_GRAPH_INFER_H_
