// The integer operators of ONNX's operator form of quantization: ConvInteger and MatMulInteger
// (int32 results), QLinearConv and QLinearMatMul (requantized to int8 or uint8). Products
// accumulate exactly in int32, with the zero points subtracted from each operand; the
// requantization multiplies by input scale × weight scale / output scale in float32, rounds to
// nearest (ties to even), adds the output zero point and saturates, as ONNX Runtime does.
#include "compiler/graph/shape.h"
#include "compiler/ir/op.h"
#include "compiler/ops/compute_util.h"
#include "compiler/ops/conv.h"
#include "compiler/ops/dense.h"
#include "compiler/ops/families.h"
#include "compiler/ops/infer_util.h"
#include "compiler/ops/quant_params.h"
#include "compiler/ops/window.h"
#include "compiler/support/error.h"

namespace tessera {
namespace ops {
namespace {

using graph::DType;
using graph::Graph;
using graph::Node;
using graph::Value;
using ir::DataType;
using ir::Expr;
using ir::Var;

// Where an integer operator's inputs stand: the two operands, their zero points and, for the
// QLinear forms, the scales, the output's scale and zero point and the bias.
struct IntegerInputs {
  size_t a = 0, b = 1;
  QuantParams a_params, b_params;
  bool requantize = false;
  QuantParams y_params;
  int bias = -1;
};

IntegerInputs InputsOf(const Node& node) {
  IntegerInputs in;
  if (node.op == "QLinearConv" || node.op == "QLinearMatMul") {
    in.a = 0;
    in.b = 3;
    in.a_params = {1, 2, 0};
    in.b_params = {4, 5, 0};
    in.requantize = true;
    in.y_params = {6, 7, 0};
    if (node.op == "QLinearConv") in.bias = 8;
    return in;
  }
  in.a_params = {0, 2, 0};  // ConvInteger and MatMulInteger have no scales
  in.b_params = {0, 3, 0};
  return in;
}

bool IsConv(const Node& node) { return node.op == "QLinearConv" || node.op == "ConvInteger"; }

// The checks of a zero point of an operator without scales: the operand's type, one element or
// one per element of `axis`.
void CheckZeroPoint(const Graph& g, const Node& node, int zero_point, const Value& operand,
                    int64_t axis) {
  if (zero_point < 0 || !HasInput(node, static_cast<size_t>(zero_point))) return;
  const Value& zp = In(g, node, static_cast<size_t>(zero_point));
  TESSERA_USER_CHECK(zp.dtype == operand.dtype)
      << NodeWhere(node) << ": the zero point '" << zp.name << "' of '" << operand.name << "' is "
      << DTypeName(zp.dtype) << "; expected " << DTypeName(operand.dtype) << " as its operand";
  const int64_t n = graph::NumElements(zp.shape);
  TESSERA_USER_CHECK(n == 1 || (zp.shape.size() == 1 && axis >= 0 &&
                                axis < static_cast<int64_t>(operand.shape.size()) &&
                                zp.shape[0] == operand.shape[axis]))
      << NodeWhere(node) << ": the zero point '" << zp.name << "' of '" << operand.name
      << "' has shape " << graph::ShapeString(zp.shape) << "; expected one element"
      << (axis >= 0 && axis < static_cast<int64_t>(operand.shape.size())
              ? " or " + std::to_string(operand.shape[axis])
              : std::string());
}

// The dimensions a 1-D parameter of each operand runs along: output channels of the weights
// (axis 0) for convolutions; rows of A and columns of B for products.
void ParamAxes(const Node& node, const Value& a, const Value& b, IntegerInputs* in) {
  const int64_t ra = static_cast<int64_t>(a.shape.size());
  const int64_t rb = static_cast<int64_t>(b.shape.size());
  in->a_params.axis = IsConv(node) ? 1 : ra - 2;
  in->b_params.axis = IsConv(node) ? 0 : rb - 1;
}

void InferInteger(Graph& g, const Node& n) {
  IntegerInputs in = InputsOf(n);
  const DType a_type = CheckQuantized(g, n, in.a, "input");
  CheckQuantized(g, n, in.b, IsConv(n) ? "weight" : "input");
  const Value& a = In(g, n, in.a);
  const Value& b = In(g, n, in.b);
  ParamAxes(n, a, b, &in);
  std::vector<int64_t> shape = IsConv(n) ? ConvOutputShape(g, n, in.a, in.b, in.bias)
                                         : MatMulShape(a.shape, b.shape, NodeWhere(n));
  if (IsConv(n)) in.a_params.axis = -1;  // the input's zero point is one value
  if (!in.requantize) {
    CheckZeroPoint(g, n, in.a_params.zero_point, a, in.a_params.axis);
    CheckZeroPoint(g, n, in.b_params.zero_point, b, in.b_params.axis);
    SetOutput(g, n, 0, DType::kInt32, shape);
    return;
  }
  CheckQuantParams(g, n, in.a_params, a.shape, "input '" + a.name + "'", {a_type});
  CheckQuantParams(g, n, in.b_params, b.shape, "'" + b.name + "'", {b.dtype});
  const std::string y = "output '" + g.values[n.outputs[0]].name + "'";
  CheckQuantParams(g, n, in.y_params, shape, y, {DType::kInt8, DType::kUInt8});
  TESSERA_USER_CHECK(graph::NumElements(In(g, n, in.y_params.scale).shape) == 1)
      << NodeWhere(n) << ": the scale of " << y << " must be one value";
  if (in.bias >= 0 && HasInput(n, static_cast<size_t>(in.bias))) {
    const Value& bias = In(g, n, static_cast<size_t>(in.bias));
    TESSERA_USER_CHECK(bias.dtype == DType::kInt32)
        << NodeWhere(n) << ": bias '" << bias.name << "' is " << DTypeName(bias.dtype)
        << "; expected int32";
  }
  SetOutput(g, n, 0, ZeroPointType(g, n, in.y_params.zero_point), shape);
}

Expr Int32(Expr v) { return ir::cast(DataType::Int(32), v); }

// An operand element with its zero point subtracted, as int32.
Expr Centered(Expr v, const Operand& zero_point, const Expr& along) {
  return Int32(v) - Int32(QuantParamAt(zero_point, along, ir::const_like(v, 0)));
}

// The int32 accumulation of a convolution over centred operands (the padding reads the input's
// zero point, which centres to 0).
te::Tensor IntegerConv(const Node& node, const IntegerInputs& ii, const std::vector<Operand>& in,
                       const std::vector<int64_t>& out_shape) {
  const Operand& x = in[ii.a];
  const Operand& w = in[ii.b];
  const auto& xs = x.shape;
  const auto& ws = w.shape;
  const Conv2dAttrs a = ParseConv2dAttrs(node);
  const int64_t cg = ws[1], kg = ws[0] / a.group;
  ir::IterVar rc = te::reduce_axis(I(cg), "rc"), ry = te::reduce_axis(I(ws[2]), "ry"),
              rx = te::reduce_axis(I(ws[3]), "rx");
  const Operand x_zero = OperandAt(in, ii.a_params.zero_point);
  const Operand w_zero = OperandAt(in, ii.b_params.zero_point);
  return te::compute(
      ShapeExprs(out_shape),
      [&](const std::vector<Var>& i) {
        Tap y = WindowTap(i[2], ry->var, a.strides[0], a.pads[0], a.dilations[0], xs[2]);
        Tap xt = WindowTap(i[3], rx->var, a.strides[1], a.pads[1], a.dilations[1], xs[3]);
        Expr c = ir::floordiv(i[1], I(kg)) * I(cg) + rc->var;
        Expr xv = Centered(x.tensor(i[0], c, y.pos, xt.pos), x_zero, I(0));
        xv = ir::if_then_else(y.inside && xt.inside, xv, ir::const_like(xv, 0));
        Expr wv = Centered(w.tensor(i[1], rc, ry, rx), w_zero, i[1]);
        return te::sum(xv * wv, {rc, ry, rx});
      },
      node.name + "_acc", "conv2d_int");
}

// The int32 accumulation of a matrix product over centred operands.
te::Tensor IntegerMatMul(const Node& node, const IntegerInputs& ii, const std::vector<Operand>& in,
                         const std::vector<int64_t>& out_shape) {
  const Operand& a = in[ii.a];
  const Operand& b = in[ii.b];
  ir::IterVar rk = te::reduce_axis(I(a.shape.back()), "rk");
  const Operand a_zero = OperandAt(in, ii.a_params.zero_point);
  const Operand b_zero = OperandAt(in, ii.b_params.zero_point);
  return te::compute(
      ShapeExprs(out_shape),
      [&](const std::vector<Var>& i) {
        const MatMulIndex index = MatMulOperandIndex(a.shape, b.shape, i, rk->var);
        const int64_t rank = static_cast<int64_t>(i.size());
        const Expr row = a.shape.size() > 1 ? Expr(i[rank - (b.shape.size() > 1 ? 2 : 1)]) : I(0);
        const Expr col = b.shape.size() > 1 ? Expr(i[rank - 1]) : I(0);
        return te::sum(
            Centered(a.tensor(index.a), a_zero, row) * Centered(b.tensor(index.b), b_zero, col),
            {rk});
      },
      node.name + "_acc", "matmul_int");
}

te::Tensor ComputeInteger(const Graph& g, const Node& node, const std::vector<Operand>& in,
                          size_t) {
  IntegerInputs ii = InputsOf(node);
  ParamAxes(node, g.values[node.inputs[ii.a]], g.values[node.inputs[ii.b]], &ii);
  const Value& out = OutValue(g, node);
  const te::Tensor acc =
      IsConv(node) ? IntegerConv(node, ii, in, out.shape) : IntegerMatMul(node, ii, in, out.shape);
  if (!ii.requantize) return acc;
  const Operand bias = OperandAt(in, ii.bias);
  const size_t rank = out.shape.size();
  return te::compute(
      ShapeExprs(out.shape),
      [&](const std::vector<Var>& i) {
        Expr v = acc(E(i));
        // The weights' per-channel parameters run along the output's channels (convolutions)
        // or columns (products).
        const Expr channel = IsConv(node) ? Expr(i[1]) : Expr(i[rank - 1]);
        if (bias.tensor.defined() || bias.scalar.defined()) v = v + Int32(At(bias, {channel}));
        const Expr scale = QuantParamAt(in[ii.a_params.scale], I(0), Expr()) *
                           QuantParamAt(in[ii.b_params.scale], channel, Expr()) /
                           QuantParamAt(in[ii.y_params.scale], I(0), Expr());
        const Expr y_zero =
            QuantParamAt(OperandAt(in, ii.y_params.zero_point), I(0), ir::const_like(v, 0));
        const Expr f = ir::round(ir::cast(DataType::Float(32), v) * scale) +
                       ir::cast(DataType::Float(32), y_zero);
        return SaturateTo(out.dtype, f);
      },
      node.name);
}

}  // namespace

void AddIntegerOps(std::vector<OpDef>* defs) {
  for (const char* name : {"ConvInteger", "MatMulInteger", "QLinearConv", "QLinearMatMul"}) {
    OpDef def;
    def.name = name;
    def.pattern = Pattern::kComplexOutFusable;
    if (def.name == "QLinearConv" || def.name == "ConvInteger") {
      def.check = [](const Node& n) { return CheckAutoPad(ParseConv2dAttrs(n).auto_pad); };
    }
    def.infer = InferInteger;
    def.compute = ComputeInteger;
    defs->push_back(def);
  }
}

}  // namespace ops
}  // namespace tessera
