/// \file
/// Helpers of the operators' shape inference: reading inputs with the messages users see, and
/// setting outputs.
#ifndef TESSERA_COMPILER_OPS_INFER_UTIL_H_
#define TESSERA_COMPILER_OPS_INFER_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"

namespace tessera {
namespace ops {

/// "node 'name' (Op)": how messages name a node.
std::string NodeWhere(const graph::Node& node);

/// Input `i` of `node`; throws `UserError` when the node lacks it.
const graph::Value& In(const graph::Graph& g, const graph::Node& node, size_t i);

/// True when `node` has input `i` (optional inputs may be omitted).
bool HasInput(const graph::Node& node, size_t i);

/// The elements of input `i` (a shape-giving input: Reshape's shape, Slice's starts, ...), which
/// must be a constant; throws `UserError` naming it as `what` otherwise.
std::vector<int64_t> ConstInts(const graph::Graph& g, const graph::Node& node, size_t i,
                               const char* what);

/// Sets the dtype and shape of output `i` of `node` (nothing when the node has no such output).
void SetOutput(graph::Graph& g, const graph::Node& node, size_t i, graph::DType dtype,
               std::vector<int64_t> shape);

}  // namespace ops
}  // namespace tessera

#endif  // TESSERA_COMPILER_OPS_INFER_UTIL_H_
