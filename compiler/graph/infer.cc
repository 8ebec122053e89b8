#include "compiler/graph/infer.h"

#include "compiler/ops/op_def.h"
#include "compiler/support/error.h"

namespace tessera {
namespace graph {

const std::vector<std::string>& SupportedOperators() {
  static const std::vector<std::string> ops = [] {
    std::vector<std::string> names;
    for (const ops::OpDef* def : ops::AllOps()) names.push_back(def->name);
    return names;
  }();
  return ops;
}

bool IsElementwise(const std::string& op) {
  return ops::HasPattern(op, ops::Pattern::kElementwise);
}

std::string UnsupportedReason(const Node& node) {
  const ops::OpDef* def = ops::FindOp(node.op);
  if (!def) return "operator " + node.op + " is not supported";
  return def->check ? def->check(node) : "";
}

void InferNode(Graph& g, const Node& node) {
  std::string reason = UnsupportedReason(node);
  TESSERA_USER_CHECK(reason.empty())
      << "node '" << node.name << "' (" << node.op << "): " << reason;
  ops::FindOp(node.op)->infer(g, node);
}

void InferShapes(Graph& g) {
  for (const Node& node : g.nodes) InferNode(g, node);
}

}  // namespace graph
}  // namespace tessera
