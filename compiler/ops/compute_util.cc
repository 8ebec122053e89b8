#include "compiler/ops/compute_util.h"

#include <algorithm>

#include "compiler/ir/op.h"

namespace tessera {
namespace ops {

using ir::DataType;
using ir::Expr;
using ir::Var;

Expr I(int64_t v) { return ir::IntImm(DataType::Int(32), v); }

std::vector<Expr> ShapeExprs(const std::vector<int64_t>& shape) {
  std::vector<Expr> out;
  for (int64_t d : shape) out.push_back(I(d));
  return out;
}

const graph::Value& OutValue(const graph::Graph& g, const graph::Node& node, size_t i) {
  return g.values[node.outputs[i]];
}

te::Tensor OutputCompute(const graph::Graph& g, const graph::Node& node, size_t output,
                         const std::function<Expr(const std::vector<Var>&)>& body) {
  return te::compute(ShapeExprs(OutValue(g, node, output).shape), body,
                     node.name + (output ? "_" + std::to_string(output) : ""));
}

Expr At(const Operand& o, const std::vector<Expr>& index) {
  if (o.scalar.defined()) return o.scalar;
  return o.tensor(index);
}

te::Tensor ReduceSum(const std::string& name, const Operand& in, std::vector<int64_t> axes,
                     bool keepdims, const std::function<Expr(Expr, const std::vector<Expr>&)>& body,
                     ir::ReduceKind kind) {
  const auto& xs = in.shape;
  std::vector<int64_t> out_shape;
  std::vector<ir::IterVar> raxes;
  for (size_t d = 0; d < xs.size(); ++d) {
    bool reduced = std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) != axes.end();
    if (reduced) raxes.push_back(te::reduce_axis(I(xs[d]), "r" + std::to_string(d)));
    if (!reduced) out_shape.push_back(xs[d]);
    if (reduced && keepdims) out_shape.push_back(1);
  }
  return te::compute(
      ShapeExprs(out_shape),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> index;
        size_t next_out = 0, next_r = 0;
        for (size_t d = 0; d < xs.size(); ++d) {
          bool reduced = std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) != axes.end();
          if (reduced) {
            index.push_back(raxes[next_r++]->var);
            if (keepdims) ++next_out;
          } else {
            index.push_back(i[next_out++]);
          }
        }
        Expr v = body(in.tensor(index), index);
        if (kind == ir::ReduceKind::kMax) return te::max(v, raxes);
        if (kind == ir::ReduceKind::kMin) return te::min(v, raxes);
        return te::sum(v, raxes);
      },
      name, "reduce");
}

Tap WindowTap(const Expr& out, const Expr& k, int64_t stride, int64_t pad, int64_t dilation,
              int64_t size) {
  Expr pos = out * I(stride) + k * I(dilation) - I(pad);
  return {pos, pos >= I(0) && pos < I(size)};
}

std::vector<Expr> KeptIndex(const std::vector<Var>& i, const std::vector<int64_t>& axes) {
  std::vector<Expr> out;
  for (size_t d = 0; d < i.size(); ++d) {
    bool reduced = std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) != axes.end();
    out.push_back(reduced ? I(0) : Expr(i[d]));
  }
  return out;
}

}  // namespace ops
}  // namespace tessera
