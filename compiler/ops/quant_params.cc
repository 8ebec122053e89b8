#include "compiler/ops/quant_params.h"

#include <algorithm>
#include <cmath>

#include "compiler/ir/op.h"
#include "compiler/ops/compute_util.h"
#include "compiler/ops/infer_util.h"
#include "compiler/support/error.h"

namespace tessera {
namespace ops {

using graph::DType;
using graph::Graph;
using graph::Node;
using graph::Value;

namespace {

std::string TypeList(const std::vector<DType>& types) {
  std::string s;
  for (size_t i = 0; i < types.size(); ++i) {
    s += (i == 0 ? "" : i + 1 == types.size() ? " or " : ", ") + std::string(DTypeName(types[i]));
  }
  return s;
}

}  // namespace

bool IsPerAxis(const Value& scale) {
  return graph::NumElements(scale.shape) != 1 || scale.shape.size() > 1;
}

Operand OperandAt(const std::vector<Operand>& in, int i) {
  return i >= 0 && static_cast<size_t>(i) < in.size() ? in[static_cast<size_t>(i)] : Operand();
}

DType CheckQuantized(const Graph& g, const Node& node, size_t i, const std::string& what) {
  const Value& v = In(g, node, i);
  TESSERA_USER_CHECK(v.dtype == DType::kInt8 || v.dtype == DType::kUInt8)
      << NodeWhere(node) << ": " << what << " '" << v.name << "' is " << DTypeName(v.dtype)
      << "; expected int8 or uint8";
  return v.dtype;
}

void CheckQuantParams(const Graph& g, const Node& node, const QuantParams& p,
                      const std::vector<int64_t>& shape, const std::string& what,
                      const std::vector<DType>& zero_types) {
  const std::string where = NodeWhere(node);
  const Value& scale = In(g, node, p.scale);
  TESSERA_USER_CHECK(scale.dtype == DType::kFloat32)
      << where << ": the scale '" << scale.name << "' of " << what << " is "
      << DTypeName(scale.dtype) << "; expected float32";
  const int64_t n = graph::NumElements(scale.shape);
  if (IsPerAxis(scale)) {
    TESSERA_USER_CHECK(p.axis >= 0 && p.axis < static_cast<int64_t>(shape.size()))
        << where << ": the quantization axis " << p.axis << " of " << what << " lies outside its "
        << shape.size() << " dimensions";
    TESSERA_USER_CHECK(scale.shape.size() == 1 && scale.shape[0] == shape[p.axis])
        << where << ": the scale '" << scale.name << "' of " << what << " has shape "
        << graph::ShapeString(scale.shape) << "; expected one element or " << shape[p.axis]
        << " (one per element of dimension " << p.axis << " of " << graph::ShapeString(shape)
        << ")";
  }
  if (scale.is_constant()) {
    for (int64_t k = 0; k < n; ++k) {
      const double s = scale.data->At(k);
      TESSERA_USER_CHECK(s > 0 && std::isfinite(s))
          << where << ": the scale '" << scale.name << "' of " << what << " holds " << s
          << " at element " << k << "; a scale must be positive and finite";
    }
  }
  if (p.zero_point < 0 || !HasInput(node, static_cast<size_t>(p.zero_point))) return;
  const Value& zp = In(g, node, static_cast<size_t>(p.zero_point));
  TESSERA_USER_CHECK(std::find(zero_types.begin(), zero_types.end(), zp.dtype) != zero_types.end())
      << where << ": the zero point '" << zp.name << "' of " << what << " is "
      << DTypeName(zp.dtype) << "; expected " << TypeList(zero_types);
  TESSERA_USER_CHECK(graph::NumElements(zp.shape) == n)
      << where << ": the zero point '" << zp.name << "' of " << what << " has shape "
      << graph::ShapeString(zp.shape) << " but its scale '" << scale.name << "' "
      << graph::ShapeString(scale.shape);
}

ir::Expr QuantParamAt(const Operand& p, const ir::Expr& along, const ir::Expr& fallback) {
  if (p.scalar.defined()) return p.scalar;
  if (!p.tensor.defined()) return fallback;
  if (graph::NumElements(p.shape) == 1) {
    return p.tensor(std::vector<ir::Expr>(p.shape.size(), I(0)));
  }
  return p.tensor({along});
}

ir::Expr SaturateTo(DType type, ir::Expr v) {
  const bool is_signed = type == DType::kInt8;
  v = ir::max(v, ir::const_like(v, is_signed ? -128 : 0));
  v = ir::min(v, ir::const_like(v, is_signed ? 127 : 255));
  return ir::cast(KernelType(type), v);
}

DType ZeroPointType(const Graph& g, const Node& node, int i) {
  if (i < 0 || !HasInput(node, static_cast<size_t>(i))) return DType::kUInt8;
  return In(g, node, static_cast<size_t>(i)).dtype;
}

}  // namespace ops
}  // namespace tessera
