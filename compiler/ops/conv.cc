// The convolution family: Conv (2-D, grouped and depthwise included).
#include "compiler/ops/conv.h"

#include <algorithm>

#include "compiler/ir/op.h"
#include "compiler/ops/compute_util.h"
#include "compiler/ops/families.h"
#include "compiler/ops/infer_util.h"
#include "compiler/ops/window.h"
#include "compiler/support/error.h"

namespace tessera {
namespace ops {
namespace {

using graph::Graph;
using graph::Node;
using graph::Value;
using ir::Expr;
using ir::Var;

std::string CheckConv(const Node& node) { return CheckAutoPad(ParseConv2dAttrs(node).auto_pad); }

void InferConv(Graph& g, const Node& node) {
  SetOutput(g, node, 0, graph::DType::kFloat32, ConvOutputShape(g, node, 0, 1, 2));
}

te::Tensor ComputeConv(const Graph& g, const Node& node, const std::vector<Operand>& in, size_t) {
  const auto& xs = in[0].shape;
  const auto& ws = in[1].shape;
  const Value& out = OutValue(g, node);
  const Conv2dAttrs a = ParseConv2dAttrs(node);
  const int64_t group = a.group, cg = ws[1], kg = ws[0] / group;
  const std::vector<int64_t>&st = a.strides, &dil = a.dilations, &pads = a.pads;
  ir::IterVar rc = te::reduce_axis(I(cg), "rc"), ry = te::reduce_axis(I(ws[2]), "ry"),
              rx = te::reduce_axis(I(ws[3]), "rx");
  te::Tensor conv = te::compute(
      ShapeExprs(out.shape),
      [&](const std::vector<Var>& i) {
        Tap y = WindowTap(i[2], ry->var, st[0], pads[0], dil[0], xs[2]);
        Tap x = WindowTap(i[3], rx->var, st[1], pads[1], dil[1], xs[3]);
        Expr c = ir::floordiv(i[1], I(kg)) * I(cg) + rc->var;
        Expr v = ir::if_then_else(y.inside && x.inside, in[0].tensor(i[0], c, y.pos, x.pos), 0.0f);
        return te::sum(v * in[1].tensor(i[1], rc, ry, rx), {rc, ry, rx});
      },
      node.name + "_conv", "conv2d");
  if (in.size() < 3 || !in[2].tensor.defined()) return conv;
  return te::compute(
      ShapeExprs(out.shape),
      [&](const std::vector<Var>& i) { return conv(E(i)) + in[2].tensor(i[1]); }, node.name);
}

}  // namespace

std::vector<int64_t> ConvOutputShape(const Graph& g, const Node& node, size_t x_input,
                                     size_t w_input, int bias) {
  const Value& x = In(g, node, x_input);
  const Value& w = In(g, node, w_input);
  std::string where = NodeWhere(node);
  TESSERA_USER_CHECK(x.shape.size() == 4 && w.shape.size() == 4)
      << where << ": only 2-D convolutions (4-D input and weights) are supported, got input "
      << graph::ShapeString(x.shape) << " and weights " << graph::ShapeString(w.shape);
  const Conv2dAttrs a = ParseConv2dAttrs(node);
  const int64_t group = a.group;
  TESSERA_USER_CHECK(group > 0 && x.shape[1] % group == 0 && w.shape[0] % group == 0 &&
                     w.shape[1] * group == x.shape[1])
      << where << ": input '" << x.name << "' has " << x.shape[1] << " channels but weights '"
      << w.name << "' " << graph::ShapeString(w.shape) << " with group " << group << " expect "
      << w.shape[1] * group;
  if (bias >= 0 && HasInput(node, static_cast<size_t>(bias))) {
    const Value& b = In(g, node, static_cast<size_t>(bias));
    TESSERA_USER_CHECK(b.shape == std::vector<int64_t>{w.shape[0]})
        << where << ": bias '" << b.name << "' has shape " << graph::ShapeString(b.shape)
        << ", expected " << w.shape[0];
  }
  std::vector<int64_t> out = {x.shape[0], w.shape[0]};
  for (int d = 0; d < 2; ++d) {
    int64_t o = WindowOut(x.shape[2 + d], w.shape[2 + d], a.strides[d], a.pads[d], a.pads[d + 2],
                          a.dilations[d], false);
    TESSERA_USER_CHECK(o > 0) << where << ": the kernel does not fit the input "
                              << graph::ShapeString(x.shape);
    out.push_back(o);
  }
  return out;
}

bool Conv2dAttrs::Uniform() const {
  return strides[0] == strides[1] && dilations[0] == 1 && dilations[1] == 1 &&
         std::all_of(pads.begin(), pads.end(), [&](int64_t p) { return p == pads[0]; });
}

Conv2dAttrs ParseConv2dAttrs(const Node& node) {
  Conv2dAttrs a;
  a.strides = node.Ints("strides", a.strides);
  a.dilations = node.Ints("dilations", a.dilations);
  a.pads = node.Ints("pads", a.pads);
  a.group = node.Int("group", a.group);
  a.auto_pad = node.String("auto_pad", a.auto_pad);
  return a;
}

void AddConvOps(std::vector<OpDef>* defs) {
  OpDef conv;
  conv.name = "Conv";
  conv.pattern = Pattern::kComplexOutFusable;
  conv.check = CheckConv;
  conv.infer = InferConv;
  conv.compute = ComputeConv;
  defs->push_back(conv);
}

}  // namespace ops
}  // namespace tessera
