#include "compiler/ops/infer_util.h"

#include "compiler/support/error.h"

namespace tessera {
namespace ops {

std::string NodeWhere(const graph::Node& node) {
  return "node '" + node.name + "' (" + node.op + ")";
}

const graph::Value& In(const graph::Graph& g, const graph::Node& node, size_t i) {
  TESSERA_USER_CHECK(HasInput(node, i)) << NodeWhere(node) << " lacks its input " << i;
  return g.values[node.inputs[i]];
}

bool HasInput(const graph::Node& node, size_t i) {
  return i < node.inputs.size() && node.inputs[i] >= 0;
}

std::vector<int64_t> ConstInts(const graph::Graph& g, const graph::Node& node, size_t i,
                               const char* what) {
  const graph::Value& v = In(g, node, i);
  TESSERA_USER_CHECK(v.is_constant())
      << NodeWhere(node) << ": its " << what << " input '" << v.name
      << "' is computed at run time; Tessera compiles static shapes only (give input shapes "
         "with --input-shape)";
  return v.data->AsInts();
}

void SetOutput(graph::Graph& g, const graph::Node& node, size_t i, graph::DType dtype,
               std::vector<int64_t> shape) {
  if (i >= node.outputs.size()) return;
  graph::Value& v = g.values[node.outputs[i]];
  v.dtype = dtype;
  v.shape = std::move(shape);
}

}  // namespace ops
}  // namespace tessera
