// The elementwise family: unary and binary math, Where, Cast, and the pass-throughs Identity and
// Dropout.
#include <cmath>

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

using graph::DType;
using graph::Graph;
using graph::Node;
using ir::DataType;
using ir::Expr;
using ir::Var;

const std::vector<std::string>& UnaryOps() {
  static const std::vector<std::string> ops = {
      "Relu",    "Sigmoid",    "Tanh",        "Erf",       "Sqrt",  "Exp",  "Log",
      "Neg",     "Abs",        "Clip",        "Gelu",      "Floor", "Ceil", "Identity",
      "Dropout", "Reciprocal", "HardSigmoid", "HardSwish", "Silu",  "Round"};
  return ops;
}

const std::vector<std::string>& BinaryOps() {
  static const std::vector<std::string> ops = {"Add",   "Sub",  "Mul",     "Div", "Pow",
                                               "Equal", "Less", "Greater", "Max", "Min"};
  return ops;
}

void InferUnary(Graph& g, const Node& n) {
  const graph::Value& x = In(g, n, 0);
  SetOutput(g, n, 0, x.dtype, x.shape);
  if (n.op == "Dropout") SetOutput(g, n, 1, DType::kBool, x.shape);
}

void InferBinary(Graph& g, const Node& n) {
  std::string where = NodeWhere(n);
  std::vector<int64_t> shape = In(g, n, 0).shape;
  for (size_t i = 1; i < n.inputs.size(); ++i) {
    shape = graph::BroadcastShapes(shape, In(g, n, i).shape, where);
  }
  bool compare = n.op == "Equal" || n.op == "Less" || n.op == "Greater";
  SetOutput(g, n, 0, compare ? DType::kBool : In(g, n, 0).dtype, shape);
}

void InferWhere(Graph& g, const Node& n) {
  std::string where = NodeWhere(n);
  std::vector<int64_t> s = graph::BroadcastShapes(
      In(g, n, 0).shape, graph::BroadcastShapes(In(g, n, 1).shape, In(g, n, 2).shape, where),
      where);
  SetOutput(g, n, 0, In(g, n, 1).dtype, s);
}

DType DTypeFromOnnx(int64_t code, const std::string& where) {
  switch (code) {
    case 1:
      return DType::kFloat32;
    case 2:
      return DType::kUInt8;
    case 3:
      return DType::kInt8;
    case 6:
      return DType::kInt32;
    case 7:
      return DType::kInt64;
    case 9:
      return DType::kBool;
    default:
      break;
  }
  TESSERA_USER_ERROR() << where << ": element type code " << code
                       << " is not supported (float32, int32, int64, int8, uint8, bool)";
  return DType::kFloat32;
}

void InferCast(Graph& g, const Node& n) {
  SetOutput(g, n, 0, DTypeFromOnnx(n.Int("to", 1), NodeWhere(n)), In(g, n, 0).shape);
}

std::string CheckGelu(const Node& node) {
  if (node.String("approximate", "none") != "none") {
    return "approximate=" + node.String("approximate", "") + " is not supported (none)";
  }
  return "";
}

// The compile-time evaluation of unary `op`, or null.
EvaluateFn EvaluateUnary(const std::string& op) {
  auto unary = [](double (*f)(double)) -> EvaluateFn {
    return [f](const Graph& g, const Node& n) {
      return One(MapElements(g, n, [f](const std::vector<double>& a) { return f(a[0]); }));
    };
  };
  if (op == "Sqrt") return unary([](double a) { return std::sqrt(a); });
  if (op == "Neg") return unary([](double a) { return -a; });
  if (op == "Identity") return CopyInput;
  return nullptr;
}

// The compile-time evaluation of binary `op`, or null.
EvaluateFn EvaluateBinary(const std::string& op) {
  double (*f)(double, double) = nullptr;
  if (op == "Add") f = [](double a, double b) { return a + b; };
  if (op == "Sub") f = [](double a, double b) { return a - b; };
  if (op == "Mul") f = [](double a, double b) { return a * b; };
  if (op == "Div") f = [](double a, double b) { return a / b; };
  if (op == "Equal") f = [](double a, double b) { return a == b ? 1.0 : 0.0; };
  if (op == "Less") f = [](double a, double b) { return a < b ? 1.0 : 0.0; };
  if (op == "Greater") f = [](double a, double b) { return a > b ? 1.0 : 0.0; };
  if (op == "Pow") f = [](double a, double b) { return std::pow(a, b); };
  if (!f) return nullptr;
  return [f](const Graph& g, const Node& n) {
    return One(MapElements(g, n, [f](const std::vector<double>& a) { return f(a[0], a[1]); }));
  };
}

Expr Unary(const std::string& op, const Node& node, const std::vector<Operand>& in, Expr x) {
  if (op == "Relu") return ir::max(x, ir::const_like(x, 0));
  if (op == "Sigmoid") return ir::sigmoid(x);
  // x * Sigmoid(x), folded from its two nodes (EfficientNet's activation): one elementwise node
  // joins a convolution's epilogue where the pair, x read twice, could not.
  if (op == "Silu") return x * ir::sigmoid(x);
  if (op == "Tanh") return ir::tanh(x);
  if (op == "Erf") return ir::erf(x);
  if (op == "Sqrt") return ir::sqrt(x);
  if (op == "Exp") return ir::exp(x);
  if (op == "Log") return ir::log(x);
  if (op == "Neg") return -x;
  if (op == "Abs") return ir::abs(x);
  if (op == "Floor") return ir::floor(x);
  if (op == "Ceil") return ir::ceil(x);
  if (op == "Round") return ir::round(x);
  if (op == "Reciprocal") return ir::const_like(x, 1) / x;
  if (op == "Identity" || op == "Dropout") return x;
  if (op == "Gelu") {
    return x * ir::const_like(x, 0.5) *
           (ir::const_like(x, 1) + ir::erf(x * ir::const_like(x, M_SQRT1_2)));
  }
  // MobileNetV3's activations: max(0, min(1, alpha x + beta)), and x times it with alpha = 1/6,
  // beta = 1/2 (PyTorch exports hardswish at opset 13 as HardSigmoid and Mul).
  if (op == "HardSigmoid" || op == "HardSwish") {
    const bool swish = op == "HardSwish";
    Expr v = x * ir::const_like(x, swish ? 1.0 / 6 : node.Float("alpha", 0.2)) +
             ir::const_like(x, swish ? 0.5 : node.Float("beta", 0.5));
    Expr clipped = ir::max(ir::min(v, ir::const_like(x, 1)), ir::const_like(x, 0));
    return swish ? x * clipped : clipped;
  }
  if (op == "Clip") {
    auto bound = [&](size_t i, const char* attr, double fallback) -> Expr {
      if (i < in.size() && (in[i].scalar.defined() || in[i].tensor.defined())) {
        TESSERA_USER_CHECK(in[i].scalar.defined())
            << NodeWhere(node) << ": Clip bounds must be constants";
        return ir::cast(x.dtype(), in[i].scalar);
      }
      return node.Has(attr) ? ir::const_like(x, node.Float(attr, fallback)) : Expr();
    };
    Expr lo = bound(1, "min", 0), hi = bound(2, "max", 0);
    if (lo.defined()) x = ir::max(x, lo);
    if (hi.defined()) x = ir::min(x, hi);
    return x;
  }
  TESSERA_INTERNAL_ERROR() << "no compute for unary " << op;
  return x;
}

Expr Binary(const std::string& op, Expr a, Expr b, const Operand& rhs) {
  if (op == "Add") return a + b;
  if (op == "Sub") return a - b;
  if (op == "Mul") return a * b;
  if (op == "Div") return a.dtype().is_float() ? a / b : ir::truncdiv(a, b);
  if (op == "Max") return ir::max(a, b);
  if (op == "Min") return ir::min(a, b);
  if (op == "Equal") return ir::cast(DataType::UInt(8), a == b);
  if (op == "Less") return ir::cast(DataType::UInt(8), a < b);
  if (op == "Greater") return ir::cast(DataType::UInt(8), a > b);
  if (op == "Pow") {
    if (const auto* f = rhs.scalar.as<ir::FloatImmNode>()) {
      if (f->value == 2) return a * a;
      if (f->value == 3) return a * a * a;
      if (f->value == 0.5) return ir::sqrt(a);
      if (f->value == 1) return a;
    }
    return ir::pow(a, ir::cast(a.dtype(), b));
  }
  TESSERA_INTERNAL_ERROR() << "no compute for binary " << op;
  return a;
}

// ONNX's Mod: with fmod=0 (integers only) the remainder takes the divisor's sign, as Python's
// `%`; with fmod=1 the dividend's, as C's fmod.
bool ModIsFmod(const Node& node, bool floats) {
  const bool fmod = node.Int("fmod", 0) != 0;
  TESSERA_USER_CHECK(fmod || !floats)
      << NodeWhere(node) << ": Mod of floating-point values needs fmod=1 (ONNX defines fmod=0 "
      << "for integers only)";
  return fmod;
}

std::string CheckMod(const Node& node) {
  const int64_t fmod = node.Int("fmod", 0);
  return fmod == 0 || fmod == 1 ? "" : "fmod=" + std::to_string(fmod) + " is not 0 or 1";
}

Expr Mod(const Node& node, Expr a, Expr b) {
  if (b.dtype() != a.dtype()) b = ir::cast(a.dtype(), b);
  const bool fmod = ModIsFmod(node, a.dtype().is_float());
  if (!a.dtype().is_float()) return fmod ? ir::truncmod(a, b) : ir::floormod(a, b);
  const Expr q = a / b;
  return a - b * ir::select(q >= ir::const_like(q, 0), ir::floor(q), ir::ceil(q));
}

std::vector<Data> EvaluateMod(const Graph& g, const Node& node) {
  const bool fmod = ModIsFmod(node, In(g, node, 0).dtype == DType::kFloat32);
  return One(MapElements(g, node, [&](const std::vector<double>& a) {
    TESSERA_USER_CHECK(a[1] != 0) << NodeWhere(node) << ": Mod by zero";
    return fmod ? std::fmod(a[0], a[1]) : a[0] - a[1] * std::floor(a[0] / a[1]);
  }));
}

// The compute of every operator of the family: one kernel stage mapping the elements.
te::Tensor ComputeElementwise(const Graph& g, const Node& node, const std::vector<Operand>& in,
                              size_t) {
  const graph::Value& out = OutValue(g, node);
  return te::compute(
      ShapeExprs(out.shape),
      [&](const std::vector<Var>& i) -> Expr {
        const std::string& op = node.op;
        if (op == "Where") {
          return ir::select(Read(in[0], i) != ir::const_like(Read(in[0], i), 0), Read(in[1], i),
                            Read(in[2], i));
        }
        if (op == "Cast") {
          Expr x = Read(in[0], i);
          if (out.dtype == DType::kBool) {
            return ir::cast(DataType::UInt(8), x != ir::const_like(x, 0));
          }
          return ir::cast(KernelType(out.dtype), x);
        }
        if (op == "Mod") return Mod(node, Read(in[0], i), Read(in[1], i));
        if (in.size() >= 2 && HasPattern(op, Pattern::kElementwise) && op != "Clip") {
          Expr acc = Read(in[0], i);
          for (size_t k = 1; k < in.size(); ++k) {
            Expr b = Read(in[k], i);
            if (b.dtype() != acc.dtype() && op != "Pow") b = ir::cast(acc.dtype(), b);
            acc = Binary(op, acc, b, in[k]);
          }
          return acc;
        }
        return Unary(op, node, in, Read(in[0], i));
      },
      node.name);
}

}  // namespace

void AddElementwiseOps(std::vector<OpDef>* defs) {
  for (const std::string& op : UnaryOps()) {
    OpDef def;
    def.name = op;
    // Identity and Dropout pass their input through (Simplify removes them).
    def.pattern = op == "Identity" || op == "Dropout" ? Pattern::kOpaque : Pattern::kElementwise;
    if (op == "Gelu") def.check = CheckGelu;
    def.infer = InferUnary;
    def.evaluate = EvaluateUnary(op);
    def.compute = ComputeElementwise;
    defs->push_back(def);
  }
  for (const std::string& op : BinaryOps()) {
    OpDef def;
    def.name = op;
    def.pattern = Pattern::kElementwise;
    def.infer = InferBinary;
    def.evaluate = EvaluateBinary(op);
    def.compute = ComputeElementwise;
    defs->push_back(def);
  }
  OpDef mod;
  mod.name = "Mod";
  mod.pattern = Pattern::kElementwise;
  mod.check = CheckMod;
  mod.infer = InferBinary;
  mod.evaluate = EvaluateMod;
  mod.compute = ComputeElementwise;
  defs->push_back(mod);
  OpDef where;
  where.name = "Where";
  where.pattern = Pattern::kElementwise;
  where.infer = InferWhere;
  where.evaluate = [](const Graph& g, const Node& n) {
    return One(MapElements(g, n, [](const std::vector<double>& a) { return a[0] ? a[1] : a[2]; }));
  };
  where.compute = ComputeElementwise;
  defs->push_back(where);
  OpDef cast;
  cast.name = "Cast";
  cast.pattern = Pattern::kElementwise;
  cast.infer = InferCast;
  cast.evaluate = CopyInput;
  cast.compute = ComputeElementwise;
  defs->push_back(cast);
}

}  // namespace ops
}  // namespace tessera
