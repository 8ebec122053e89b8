// The reduction family: ReduceMean, ReduceMax, ReduceMin, Softmax, LayerNormalization, and
// BatchNormalization (which fold_batch_norm rewrites into a scale and shift).
#include <algorithm>

#include "compiler/graph/shape.h"
#include "compiler/ir/op.h"
#include "compiler/ops/compute_util.h"
#include "compiler/ops/families.h"
#include "compiler/ops/infer_util.h"
#include "compiler/support/error.h"

namespace tessera {
namespace ops {
namespace {

using graph::Graph;
using graph::Node;
using graph::Value;
using ir::Expr;
using ir::Var;

// The reduced axes, normalized (every axis when the attribute is absent).
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

te::Tensor ComputeReduceMean(const Graph& g, const Node& node, const std::vector<Operand>& in,
                             size_t) {
  const auto& xs = in[0].shape;
  std::vector<int64_t> axes = ReduceAxes(node, static_cast<int64_t>(xs.size()));
  int64_t count = 1;
  for (int64_t a : axes) count *= xs[a];
  te::Tensor sum = ReduceSum(node.name + "_sum", in[0], axes, node.Int("keepdims", 1) != 0,
                             [](Expr v, const std::vector<Expr>&) { return v; });
  const float inv = 1.0f / static_cast<float>(count);
  return te::compute(
      ShapeExprs(OutValue(g, node).shape),
      [&](const std::vector<Var>& i) { return sum(E(i)) * inv; }, node.name);
}

// ReduceMax and ReduceMin.
te::Tensor ComputeReduceExtreme(const Graph&, const Node& node, const std::vector<Operand>& in,
                                size_t) {
  std::vector<int64_t> axes = ReduceAxes(node, static_cast<int64_t>(in[0].shape.size()));
  return ReduceSum(
      node.name, in[0], axes, node.Int("keepdims", 1) != 0,
      [](Expr v, const std::vector<Expr>&) { return v; },
      node.op == "ReduceMax" ? ir::ReduceKind::kMax : ir::ReduceKind::kMin);
}

te::Tensor ComputeSoftmax(const Graph& g, const Node& node, const std::vector<Operand>& in,
                          size_t) {
  const auto& xs = in[0].shape;
  int64_t axis =
      graph::NormalizeAxis(node.Int("axis", -1), static_cast<int64_t>(xs.size()), NodeWhere(node));
  std::vector<int64_t> axes = {axis};
  auto identity = [](Expr v, const std::vector<Expr>&) { return v; };
  te::Tensor mx = ReduceSum(node.name + "_max", in[0], axes, true, identity, ir::ReduceKind::kMax);
  te::Tensor sum =
      ReduceSum(node.name + "_sum", in[0], axes, true, [&](Expr v, const std::vector<Expr>& idx) {
        std::vector<Expr> k = idx;
        k[axis] = I(0);
        return ir::exp(v - mx(k));
      });
  return te::compute(
      ShapeExprs(xs),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> k = KeptIndex(i, axes);
        return ir::exp(in[0].tensor(E(i)) - mx(k)) / sum(k);
      },
      node.name);
}

te::Tensor ComputeLayerNorm(const Graph& g, const Node& node, const std::vector<Operand>& in,
                            size_t) {
  const auto& xs = in[0].shape;
  int64_t rank = static_cast<int64_t>(xs.size());
  int64_t axis = graph::NormalizeAxis(node.Int("axis", -1), rank, NodeWhere(node));
  std::vector<int64_t> axes;
  int64_t count = 1;
  for (int64_t d = axis; d < rank; ++d) {
    axes.push_back(d);
    count *= xs[d];
  }
  const float inv = 1.0f / static_cast<float>(count);
  auto identity = [](Expr v, const std::vector<Expr>&) { return v; };
  te::Tensor sum = ReduceSum(node.name + "_sum", in[0], axes, true, identity);
  te::Tensor sq =
      ReduceSum(node.name + "_sqsum", in[0], axes, true, [&](Expr v, const std::vector<Expr>& idx) {
        std::vector<Expr> k = idx;
        for (int64_t a : axes) k[a] = I(0);
        Expr d = v - sum(k) * inv;
        return d * d;
      });
  const float eps = static_cast<float>(node.Float("epsilon", 1e-5));
  return te::compute(
      ShapeExprs(xs),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> k = KeptIndex(i, axes);
        Expr norm = (in[0].tensor(E(i)) - sum(k) * inv) / ir::sqrt(sq(k) * inv + eps);
        std::vector<Var> tail(i.begin() + axis, i.end());
        Expr v = norm * Read(in[1], tail);
        if (in.size() > 2 && (in[2].tensor.defined() || in[2].scalar.defined())) {
          v = v + Read(in[2], tail);
        }
        return v;
      },
      node.name);
}

OpDef Def(const std::string& name, Pattern pattern, InferFn infer, ComputeFn compute) {
  OpDef def;
  def.name = name;
  def.pattern = pattern;
  def.infer = std::move(infer);
  def.compute = std::move(compute);
  return def;
}

}  // namespace

void AddReduceOps(std::vector<OpDef>* defs) {
  defs->push_back(Def("ReduceMean", Pattern::kReduction, InferReduceMean, ComputeReduceMean));
  defs->push_back(Def("ReduceMax", Pattern::kReduction, InferReduceMean, ComputeReduceExtreme));
  defs->push_back(Def("ReduceMin", Pattern::kReduction, InferReduceMean, ComputeReduceExtreme));
  defs->push_back(Def("Softmax", Pattern::kReduction, InferAlongAxis, ComputeSoftmax));
  defs->push_back(Def("LayerNormalization", Pattern::kReduction, InferAlongAxis, ComputeLayerNorm));
  OpDef bn = Def("BatchNormalization", Pattern::kOpaque, InferBatchNorm, nullptr);
  bn.check = CheckBatchNorm;
  defs->push_back(bn);
}

}  // namespace ops
}  // namespace tessera
