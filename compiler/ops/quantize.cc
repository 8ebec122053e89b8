// The quantization family: QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear, per
// tensor or per axis, with ONNX's rounding (to nearest, ties to even) and saturation; and
// QuantizeDequantize, Tessera's own operator for a QuantizeLinear read by a DequantizeLinear of
// the same scale and zero point (graph::FoldQuantizePairs): the float value the pair gives, in
// one elementwise node that joins its producer's kernel.
#include <cmath>

#include "compiler/graph/shape.h"
#include "compiler/ir/op.h"
#include "compiler/ops/compute_util.h"
#include "compiler/ops/evaluate_util.h"
#include "compiler/ops/families.h"
#include "compiler/ops/infer_util.h"
#include "compiler/ops/quant_params.h"
#include "compiler/support/error.h"

namespace tessera {
namespace ops {
namespace {

using graph::DType;
using graph::Graph;
using graph::Node;
using graph::QuantizedForm;
using graph::Value;
using ir::DataType;
using ir::Expr;
using ir::Var;

// Inputs 1 and 2 of QuantizeLinear and DequantizeLinear, along the node's `axis` (default 1).
QuantParams LinearParams(const Graph& g, const Node& node) {
  const int64_t rank = static_cast<int64_t>(In(g, node, 0).shape.size());
  int64_t axis = node.Int("axis", 1);
  if (axis < 0) axis += rank;
  return {1, 2, axis};
}

// QuantizeLinear, and QuantizeDequantize (float32 out).
void InferQuantize(Graph& g, const Node& n) {
  const Value& x = In(g, n, 0);
  TESSERA_USER_CHECK(x.dtype == DType::kFloat32 || x.dtype == DType::kInt32)
      << NodeWhere(n) << ": input '" << x.name << "' is " << DTypeName(x.dtype)
      << "; expected float32 or int32";
  CheckQuantParams(g, n, LinearParams(g, n), x.shape,
                   "output '" + g.values[n.outputs[0]].name + "'", {DType::kInt8, DType::kUInt8});
  const bool pair = n.op == "QuantizeDequantize";
  SetOutput(g, n, 0, pair ? DType::kFloat32 : ZeroPointType(g, n, 2), x.shape);
}

void InferDequantize(Graph& g, const Node& n) {
  const Value& x = In(g, n, 0);
  TESSERA_USER_CHECK(x.dtype == DType::kInt8 || x.dtype == DType::kUInt8 ||
                     x.dtype == DType::kInt32)
      << NodeWhere(n) << ": input '" << x.name << "' is " << DTypeName(x.dtype)
      << "; expected int8, uint8 or int32";
  CheckQuantParams(g, n, LinearParams(g, n), x.shape, "input '" + x.name + "'", {x.dtype});
  // ONNX defines an int32 input (a bias) with no zero point, or one of 0.
  if (x.dtype == DType::kInt32 && HasInput(n, 2) && In(g, n, 2).is_constant()) {
    const Value& zp = In(g, n, 2);
    for (int64_t k = 0; k < zp.data->NumElements(); ++k) {
      TESSERA_USER_CHECK(zp.data->At(k) == 0)
          << NodeWhere(n) << ": the zero point '" << zp.name << "' of int32 input '" << x.name
          << "' holds " << zp.data->At(k) << "; it must be 0";
    }
  }
  SetOutput(g, n, 0, DType::kFloat32, x.shape);
}

Expr QuantizeValue(DType type, Expr x, Expr scale, Expr zero_point) {
  x = ir::cast(DataType::Float(32), x);
  return SaturateTo(type, ir::round(x / scale) + ir::cast(DataType::Float(32), zero_point));
}

Expr DequantizeValue(Expr x, Expr scale, Expr zero_point) {
  const Expr diff = ir::cast(DataType::Int(32), x) - ir::cast(DataType::Int(32), zero_point);
  return ir::cast(DataType::Float(32), diff) * scale;
}

te::Tensor ComputeQuantizeLinear(const Graph& g, const Node& node, const std::vector<Operand>& in,
                                 size_t) {
  const int64_t axis = LinearParams(g, node).axis;
  const bool per_axis = IsPerAxis(In(g, node, 1));
  const Value& out = OutValue(g, node);
  return te::compute(
      ShapeExprs(out.shape),
      [&](const std::vector<Var>& i) {
        const Expr along = per_axis ? Expr(i[axis]) : I(0);
        const Expr scale = QuantParamAt(in[1], along, Expr());
        const Expr x = Read(in[0], i);
        const Expr zero = QuantParamAt(OperandAt(in, 2), along, ir::const_like(x, 0));
        if (node.op == "QuantizeLinear") return QuantizeValue(out.dtype, x, scale, zero);
        if (node.op == "DequantizeLinear") return DequantizeValue(x, scale, zero);
        const DType type = ZeroPointType(g, node, 2);
        return DequantizeValue(QuantizeValue(type, x, scale, zero), scale, zero);
      },
      node.name);
}

// QuantizeLinear and DequantizeLinear of constants (weights, biases), with the kernels'
// float32 arithmetic.
std::vector<Data> EvaluateQuantizeLinear(const Graph& g, const Node& node) {
  const bool quantize = node.op == "QuantizeLinear";
  const graph::TensorData& x = *Input(g, node, 0).data;
  const graph::TensorData& scale = *Input(g, node, 1).data;
  const graph::TensorData* zero = HasInput(node, 2) ? Input(g, node, 2).data.get() : nullptr;
  const bool per_axis = IsPerAxis(In(g, node, 1));
  const int64_t axis = LinearParams(g, node).axis;
  const int64_t stride = per_axis ? Strides(x.shape)[axis] : 1;
  const int64_t extent = per_axis ? x.shape[axis] : 1;
  Data out = OutputData(g, node);
  for (int64_t k = 0; k < x.NumElements(); ++k) {
    const int64_t c = per_axis ? (k / stride) % extent : 0;
    const float s = static_cast<float>(scale.At(c));
    const double z = zero ? zero->At(c) : 0;
    if (quantize) {
      out->Set(k, std::nearbyint(static_cast<float>(x.At(k)) / s) + z);  // Set saturates
    } else {
      out->Set(k, static_cast<float>(static_cast<int64_t>(x.At(k)) - static_cast<int64_t>(z)) * s);
    }
  }
  if (!quantize) {
    auto form = std::make_shared<QuantizedForm>();
    form->values = Input(g, node, 0).data;
    form->scale = Input(g, node, 1).data;
    if (HasInput(node, 2)) form->zero_point = Input(g, node, 2).data;
    form->axis = per_axis ? axis : 0;
    out->quantized = form;
  }
  return One(out);
}

void InferDynamicQuantize(Graph& g, const Node& n) {
  const Value& x = In(g, n, 0);
  TESSERA_USER_CHECK(x.dtype == DType::kFloat32) << NodeWhere(n) << ": input '" << x.name << "' is "
                                                 << DTypeName(x.dtype) << "; expected float32";
  SetOutput(g, n, 0, DType::kUInt8, x.shape);
  SetOutput(g, n, 1, DType::kFloat32, {});
  SetOutput(g, n, 2, DType::kUInt8, {});
}

// DynamicQuantizeLinear: uint8 over the range of the input's values widened to hold 0. Each
// output recomputes the range (three kernels of one small reduction each).
te::Tensor ComputeDynamicQuantize(const Graph& g, const Node& node, const std::vector<Operand>& in,
                                  size_t output) {
  std::vector<int64_t> all;
  for (size_t d = 0; d < in[0].shape.size(); ++d) all.push_back(static_cast<int64_t>(d));
  auto identity = [](Expr v, const std::vector<Expr>&) { return v; };
  te::Tensor lo = ReduceSum(node.name + "_min", in[0], all, false, identity, ir::ReduceKind::kMin);
  te::Tensor hi = ReduceSum(node.name + "_max", in[0], all, false, identity, ir::ReduceKind::kMax);
  const std::vector<Expr> none;
  auto scale = [&]() {
    Expr zero = ir::const_like(lo(none), 0);
    return (ir::max(hi(none), zero) - ir::min(lo(none), zero)) / ir::const_like(zero, 255);
  };
  auto zero_point = [&]() {
    Expr shifted =
        ir::const_like(lo(none), 0) - ir::min(lo(none), ir::const_like(lo(none), 0)) / scale();
    return SaturateTo(DType::kUInt8, ir::round(shifted));
  };
  return OutputCompute(g, node, output, [&](const std::vector<Var>& i) -> Expr {
    if (output == 1) return scale();
    if (output == 2) return zero_point();
    return QuantizeValue(DType::kUInt8, in[0].tensor(E(i)), scale(), zero_point());
  });
}

}  // namespace

void AddQuantizeOps(std::vector<OpDef>* defs) {
  for (const char* name : {"QuantizeLinear", "DequantizeLinear", "QuantizeDequantize"}) {
    OpDef def;
    def.name = name;
    def.pattern = Pattern::kElementwise;
    def.infer = def.name == "DequantizeLinear" ? InferDequantize : InferQuantize;
    if (def.name != "QuantizeDequantize") def.evaluate = EvaluateQuantizeLinear;
    def.compute = ComputeQuantizeLinear;
    defs->push_back(def);
  }
  OpDef dynamic;
  dynamic.name = "DynamicQuantizeLinear";
  dynamic.pattern = Pattern::kOpaque;
  dynamic.infer = InferDynamicQuantize;
  dynamic.compute = ComputeDynamicQuantize;
  defs->push_back(dynamic);
}

}  // namespace ops
}  // namespace tessera
