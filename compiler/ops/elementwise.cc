// The elementwise family: unary and binary math, Where, Cast, and the pass-throughs Identity and
// Dropout.
#include <cmath>

#include "compiler/graph/shape.h"
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

const std::vector<std::string>& UnaryOps() {
  static const std::vector<std::string> ops = {
      "Relu", "Sigmoid", "Tanh", "Erf",   "Sqrt", "Exp",      "Log",     "Neg",
      "Abs",  "Clip",    "Gelu", "Floor", "Ceil", "Identity", "Dropout", "Reciprocal"};
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
                       << " is not supported (float32, int32, int64, bool)";
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
    defs->push_back(def);
  }
  for (const std::string& op : BinaryOps()) {
    OpDef def;
    def.name = op;
    def.pattern = Pattern::kElementwise;
    def.infer = InferBinary;
    def.evaluate = EvaluateBinary(op);
    defs->push_back(def);
  }
  OpDef where;
  where.name = "Where";
  where.pattern = Pattern::kElementwise;
  where.infer = InferWhere;
  where.evaluate = [](const Graph& g, const Node& n) {
    return One(MapElements(g, n, [](const std::vector<double>& a) { return a[0] ? a[1] : a[2]; }));
  };
  defs->push_back(where);
  OpDef cast;
  cast.name = "Cast";
  cast.pattern = Pattern::kElementwise;
  cast.infer = InferCast;
  cast.evaluate = CopyInput;
  defs->push_back(cast);
}

}  // namespace ops
}  // namespace tessera
