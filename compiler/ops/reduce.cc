// The reduction family: ReduceMean, Softmax, LayerNormalization, and BatchNormalization (which
// fold_batch_norm rewrites into a scale and shift).
#include <algorithm>

#include "compiler/graph/shape.h"
#include "compiler/ops/families.h"
#include "compiler/ops/infer_util.h"
#include "compiler/support/error.h"

namespace tessera {
namespace ops {
namespace {

using graph::Graph;
using graph::Node;
using graph::Value;

// ReduceMean's axes, normalized (every axis when the attribute is absent).
std::vector<int64_t> ReduceAxes(const Node& node, int64_t rank) {
  std::vector<int64_t> axes = node.Ints("axes");
  if (axes.empty()) {
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  }
  for (int64_t& a : axes) a = graph::NormalizeAxis(a, rank, NodeWhere(node));
  return axes;
}

void InferReduceMean(Graph& g, const Node& n) {
  const Value& x = In(g, n, 0);
  int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> axes = ReduceAxes(n, rank);
  bool keep = n.Int("keepdims", 1) != 0;
  std::vector<int64_t> out;
  for (int64_t i = 0; i < rank; ++i) {
    bool reduced = std::find(axes.begin(), axes.end(), i) != axes.end();
    if (!reduced) {
      out.push_back(x.shape[i]);
    } else if (keep) {
      out.push_back(1);
    }
  }
  SetOutput(g, n, 0, x.dtype, out);
}

// Softmax and LayerNormalization: the shape of the input, normalized along `axis` (-1 default).
void InferAlongAxis(Graph& g, const Node& n) {
  const Value& x = In(g, n, 0);
  graph::NormalizeAxis(n.Int("axis", -1), static_cast<int64_t>(x.shape.size()), NodeWhere(n));
  SetOutput(g, n, 0, x.dtype, x.shape);
}

std::string CheckBatchNorm(const Node& node) {
  return node.Int("training_mode", 0) != 0 ? "training_mode=1" : "";
}

void InferBatchNorm(Graph& g, const Node& n) {
  const Value& x = In(g, n, 0);
  TESSERA_USER_CHECK(x.shape.size() >= 2) << NodeWhere(n) << ": input rank must be ≥ 2";
  for (size_t i = 1; i < 5; ++i) {
    const Value& p = In(g, n, i);
    TESSERA_USER_CHECK(p.shape == std::vector<int64_t>{x.shape[1]})
        << NodeWhere(n) << ": '" << p.name << "' has shape " << graph::ShapeString(p.shape)
        << ", expected " << x.shape[1];
  }
  SetOutput(g, n, 0, x.dtype, x.shape);
}

OpDef Def(const std::string& name, Pattern pattern, InferFn infer) {
  OpDef def;
  def.name = name;
  def.pattern = pattern;
  def.infer = std::move(infer);
  return def;
}

}  // namespace

void AddReduceOps(std::vector<OpDef>* defs) {
  defs->push_back(Def("ReduceMean", Pattern::kReduction, InferReduceMean));
  defs->push_back(Def("Softmax", Pattern::kReduction, InferAlongAxis));
  defs->push_back(Def("LayerNormalization", Pattern::kReduction, InferAlongAxis));
  OpDef bn = Def("BatchNormalization", Pattern::kOpaque, InferBatchNorm);
  bn.check = CheckBatchNorm;
  defs->push_back(bn);
}

}  // namespace ops
}  // namespace tessera
