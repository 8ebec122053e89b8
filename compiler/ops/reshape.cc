// The reshape family: Reshape, Flatten, Squeeze and Unsqueeze (the elements in the same order
// under another shape), and Expand (broadcast to a given shape).
#include <algorithm>

#include "compiler/graph/shape.h"
#include "compiler/ir/op.h"
#include "compiler/ops/compute_util.h"
#include "compiler/ops/evaluate_util.h"
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

std::vector<int64_t> ReshapeTarget(const Graph& g, const Node& node, const Value& x) {
  std::vector<int64_t> target = ConstInts(g, node, 1, "shape");
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == 0 && node.Int("allowzero", 0) == 0) {
      TESSERA_USER_CHECK(i < x.shape.size()) << NodeWhere(node) << ": 0 at position " << i
                                             << " of the shape has no input dimension to copy";
      target[i] = x.shape[i];
    }
    if (target[i] == -1) {
      TESSERA_USER_CHECK(infer < 0) << NodeWhere(node) << ": more than one -1 in the shape";
      infer = static_cast<int64_t>(i);
    } else {
      known *= target[i];
    }
  }
  int64_t total = graph::NumElements(x.shape);
  if (infer >= 0) {
    TESSERA_USER_CHECK(known > 0 && total % known == 0)
        << NodeWhere(node) << ": cannot reshape " << graph::ShapeString(x.shape) << " to "
        << graph::ShapeString(target);
    target[infer] = total / known;
  }
  TESSERA_USER_CHECK(graph::NumElements(target) == total)
      << NodeWhere(node) << ": cannot reshape '" << x.name << "' of shape "
      << graph::ShapeString(x.shape) << " (" << total << " elements) to "
      << graph::ShapeString(target);
  return target;
}

void InferReshape(Graph& g, const Node& n) {
  const Value& x = In(g, n, 0);
  SetOutput(g, n, 0, x.dtype, ReshapeTarget(g, n, x));
}

void InferFlatten(Graph& g, const Node& n) {
  const Value& x = In(g, n, 0);
  int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = n.Int("axis", 1);
  if (axis < 0) axis += rank;
  TESSERA_USER_CHECK(axis >= 0 && axis <= rank) << NodeWhere(n) << ": bad axis";
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < rank; ++i) (i < axis ? outer : inner) *= x.shape[i];
  SetOutput(g, n, 0, x.dtype, {outer, inner});
}

// The axes of Squeeze and Unsqueeze: an input since opset 13, an attribute before.
std::vector<int64_t> SqueezeAxes(const Graph& g, const Node& n) {
  return HasInput(n, 1) ? ConstInts(g, n, 1, "axes") : n.Ints("axes");
}

void InferUnsqueeze(Graph& g, const Node& n) {
  const Value& x = In(g, n, 0);
  std::vector<int64_t> axes = SqueezeAxes(g, n);
  const int64_t rank = static_cast<int64_t>(x.shape.size() + axes.size());
  for (int64_t& a : axes) a = graph::NormalizeAxis(a, rank, NodeWhere(n));
  std::sort(axes.begin(), axes.end());
  std::vector<int64_t> out;
  size_t next = 0;
  for (int64_t i = 0; i < rank; ++i) {
    if (std::binary_search(axes.begin(), axes.end(), i)) {
      out.push_back(1);
    } else {
      out.push_back(x.shape[next++]);
    }
  }
  SetOutput(g, n, 0, x.dtype, out);
}

void InferSqueeze(Graph& g, const Node& n) {
  const Value& x = In(g, n, 0);
  int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> axes = SqueezeAxes(g, n);
  for (int64_t& a : axes) a = graph::NormalizeAxis(a, rank, NodeWhere(n));
  std::vector<int64_t> out;
  for (int64_t i = 0; i < rank; ++i) {
    bool squeeze =
        axes.empty() ? x.shape[i] == 1 : std::find(axes.begin(), axes.end(), i) != axes.end();
    TESSERA_USER_CHECK(!squeeze || x.shape[i] == 1)
        << NodeWhere(n) << ": axis " << i << " of '" << x.name << "' has size " << x.shape[i]
        << ", not 1";
    if (!squeeze) out.push_back(x.shape[i]);
  }
  SetOutput(g, n, 0, x.dtype, out);
}

void InferExpand(Graph& g, const Node& n) {
  const Value& x = In(g, n, 0);
  SetOutput(g, n, 0, x.dtype,
            graph::BroadcastShapes(x.shape, ConstInts(g, n, 1, "shape"), NodeWhere(n)));
}

std::vector<Data> EvaluateExpand(const Graph& g, const Node& n) {
  const Value& in = Input(g, n, 0);
  const std::vector<int64_t>& out = g.values[n.outputs[0]].shape;
  return One(Gathered(g, n, [&](int64_t i) { return BroadcastIndex(out, in.shape, i); }));
}

// Flat row-major offset of `index` in `shape`.
Expr Flat(const std::vector<Var>& index, const std::vector<int64_t>& shape) {
  Expr flat = I(0);
  for (size_t d = 0; d < shape.size(); ++d) flat = flat * I(shape[d]) + index[d];
  return flat;
}

// The compute of the reshapes: the input's element at the same flat offset.
te::Tensor ComputeReshape(const Graph& g, const Node& node, const std::vector<Operand>& in,
                          size_t) {
  const Value& out = OutValue(g, node);
  const auto& xs = in[0].shape;
  return te::compute(
      ShapeExprs(out.shape),
      [&](const std::vector<Var>& i) {
        Expr flat = Flat(i, out.shape);
        std::vector<Expr> index(xs.size());
        for (size_t d = xs.size(); d-- > 0;) {
          index[d] = ir::floormod(flat, I(xs[d]));
          flat = ir::floordiv(flat, I(xs[d]));
        }
        return in[0].tensor(index);
      },
      node.name);
}

te::Tensor ComputeExpand(const Graph& g, const Node& node, const std::vector<Operand>& in,
                         size_t output) {
  return OutputCompute(g, node, output, [&](const std::vector<Var>& i) { return Read(in[0], i); });
}

OpDef Reshaping(const std::string& name, InferFn infer) {
  OpDef def;
  def.name = name;
  def.pattern = Pattern::kInjective;
  def.reshape = true;
  def.infer = std::move(infer);
  def.evaluate = CopyInput;
  def.compute = ComputeReshape;
  return def;
}

}  // namespace

void AddReshapeOps(std::vector<OpDef>* defs) {
  defs->push_back(Reshaping("Reshape", InferReshape));
  defs->push_back(Reshaping("Flatten", InferFlatten));
  defs->push_back(Reshaping("Squeeze", InferSqueeze));
  defs->push_back(Reshaping("Unsqueeze", InferUnsqueeze));
  OpDef expand;
  expand.name = "Expand";
  expand.infer = InferExpand;
  expand.evaluate = EvaluateExpand;
  expand.compute = ComputeExpand;
  defs->push_back(expand);
}

}  // namespace ops
}  // namespace tessera
