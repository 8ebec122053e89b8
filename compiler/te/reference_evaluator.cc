#include "compiler/te/reference_evaluator.h"

#include <cmath>
#include <functional>

#include "compiler/ir/builtin.h"
#include "compiler/ir/functor.h"
#include "compiler/support/error.h"

namespace tessera {
namespace te {

namespace {

using ir::DataType;

double Round(DataType t, double v) {
  if (t.is_float() && t.bits() == 32) return static_cast<double>(static_cast<float>(v));
  if (t.is_bool()) return v != 0 ? 1 : 0;
  if (t.is_int() && t.bits() == 32)
    return static_cast<double>(static_cast<int32_t>(static_cast<int64_t>(v)));
  return v;
}

double FloorDiv(double a, double b) { return std::floor(a / b); }

// As compiled code computes them (op.h): with a NaN operand the result is the second one.
double Min(double a, double b) { return a < b ? a : b; }
double Max(double a, double b) { return a > b ? a : b; }

class Interpreter {
 public:
  Interpreter(ReferenceEvaluator* owner, std::unordered_map<const ir::Object*, double>* env)
      : owner_(owner), env_(env) {}

  double Eval(const Expr& e) {
    DataType t = e.dtype();
    if (const auto* imm = e.as<ir::IntImmNode>()) return static_cast<double>(imm->value);
    if (const auto* f = e.as<ir::FloatImmNode>()) return Round(t, f->value);
    if (const auto* v = e.as<ir::VarNode>()) {
      auto it = env_->find(v);
      TESSERA_INTERNAL_CHECK(it != env_->end())
          << "reference evaluator: unbound variable " << v->name_hint;
      return it->second;
    }
    if (const auto* b = ir::AsBinary(e)) return Round(t, Binary(b));
    if (const auto* n = e.as<ir::NotNode>()) return Eval(n->a) != 0 ? 0 : 1;
    if (const auto* s = e.as<ir::SelectNode>()) {
      double c = Eval(s->condition);
      double tv = Eval(s->true_value), fv = Eval(s->false_value);
      return c != 0 ? tv : fv;
    }
    if (const auto* c = e.as<ir::CastNode>()) {
      double v = Eval(c->value);
      if (t.is_integer() && c->value.dtype().is_float()) v = std::trunc(v);
      return Round(t, v);
    }
    if (const auto* l = e.as<ir::LetNode>()) {
      (*env_)[l->var.get()] = Eval(l->value);
      return Eval(l->body);
    }
    if (const auto* call = e.as<ir::CallNode>()) return Round(t, Call(call));
    if (const auto* load = e.as<ir::ProducerLoadNode>()) {
      Tensor tensor(load->producer.as<TensorNode>());
      std::vector<int64_t> shape = ReferenceEvaluator::ConstShape(tensor);
      int64_t flat = 0;
      for (size_t i = 0; i < shape.size(); ++i) {
        int64_t idx = static_cast<int64_t>(Eval(load->indices[i]));
        TESSERA_USER_CHECK(idx >= 0 && idx < shape[i])
            << "reference evaluator: index " << idx << " out of range [0, " << shape[i]
            << ") in dimension " << i << " of '" << tensor.name() << "'";
        flat = flat * shape[i] + idx;
      }
      return owner_->Compute(tensor)[flat];
    }
    if (const auto* r = e.as<ir::ReduceNode>()) return Reduce(r);
    TESSERA_INTERNAL_ERROR() << "reference evaluator: unsupported node " << e.get()->type_name();
    return 0;
  }

 private:
  double Binary(const ir::BinaryNode* b) {
    // Like compiled code: `b` of a scalar && or || runs only when `a` does not decide.
    if (b->kind() == ir::kAnd || b->kind() == ir::kOr) {
      bool a = Eval(b->a) != 0;
      if (a == (b->kind() == ir::kOr)) return a;
      return Eval(b->b) != 0;
    }
    double x = Eval(b->a), y = Eval(b->b);
    bool is_int = b->a.dtype().is_integer();
    switch (b->kind()) {
      case ir::kAdd:
        return x + y;
      case ir::kSub:
        return x - y;
      case ir::kMul:
        return x * y;
      case ir::kDiv:
        return is_int ? std::trunc(x / y) : x / y;
      case ir::kMod:
        return std::fmod(x, y);
      case ir::kFloorDiv:
        return FloorDiv(x, y);
      case ir::kFloorMod:
        return x - FloorDiv(x, y) * y;
      case ir::kMin:
        return Min(x, y);
      case ir::kMax:
        return Max(x, y);
      case ir::kEQ:
        return x == y;
      case ir::kNE:
        return x != y;
      case ir::kLT:
        return x < y;
      case ir::kLE:
        return x <= y;
      case ir::kGT:
        return x > y;
      case ir::kGE:
        return x >= y;
      default:
        TESSERA_INTERNAL_ERROR() << "unknown binary node";
    }
    return 0;
  }

  double Call(const ir::CallNode* c) {
    const std::string& n = c->name;
    if (n == ir::builtin::kIfThenElse)
      return Eval(c->args[0]) != 0 ? Eval(c->args[1]) : Eval(c->args[2]);
    if (n == ir::builtin::kLikely) return Eval(c->args[0]);
    std::vector<double> a;
    for (const Expr& x : c->args) a.push_back(Eval(x));
    if (n == "exp") return std::exp(a[0]);
    if (n == "log") return std::log(a[0]);
    if (n == "sqrt") return std::sqrt(a[0]);
    if (n == "tanh") return std::tanh(a[0]);
    if (n == "sigmoid") return 1.0 / (1.0 + std::exp(-a[0]));
    if (n == "fabs") return std::fabs(a[0]);
    if (n == "floor") return std::floor(a[0]);
    if (n == "ceil") return std::ceil(a[0]);
    if (n == "round") return std::nearbyint(a[0]);  // ties to even (op.h)
    if (n == "erf") return std::erf(a[0]);
    if (n == "pow") return std::pow(a[0], a[1]);
    if (n == "fma") return std::fma(a[0], a[1], a[2]);
    if (n == ir::builtin::kDot4U8S8) {
      const auto x = static_cast<uint32_t>(static_cast<int64_t>(a[0]));
      const auto y = static_cast<uint32_t>(static_cast<int64_t>(a[1]));
      double sum = 0;
      for (int k = 0; k < 4; ++k) {
        sum += static_cast<double>((x >> (8 * k)) & 0xff) *
               static_cast<int8_t>(static_cast<uint8_t>((y >> (8 * k)) & 0xff));
      }
      return sum;
    }
    TESSERA_USER_ERROR() << "reference evaluator: unsupported intrinsic '" << n << "'";
    return 0;
  }

  double Reduce(const ir::ReduceNode* r) {
    DataType t = r->dtype;
    double acc = Eval(ReduceIdentity(r->combiner, t));
    std::function<void(size_t)> loop = [&](size_t depth) {
      if (depth == r->axis.size()) {
        if (Eval(r->condition) == 0) return;
        double v = Eval(r->source);
        switch (r->combiner) {
          case ir::ReduceKind::kSum:
            acc = Round(t, acc + v);
            break;
          case ir::ReduceKind::kProd:
            acc = Round(t, acc * v);
            break;
          case ir::ReduceKind::kMin:
            acc = Min(acc, v);
            break;
          case ir::ReduceKind::kMax:
            acc = Max(acc, v);
            break;
        }
        return;
      }
      const IterVar& iv = r->axis[depth];
      int64_t mn = static_cast<int64_t>(Eval(iv->dom.min)),
              ext = static_cast<int64_t>(Eval(iv->dom.extent));
      for (int64_t i = mn; i < mn + ext; ++i) {
        (*env_)[iv->var.get()] = static_cast<double>(i);
        loop(depth + 1);
      }
    };
    loop(0);
    return acc;
  }

  ReferenceEvaluator* owner_;
  std::unordered_map<const ir::Object*, double>* env_;
};

}  // namespace

std::vector<int64_t> ReferenceEvaluator::ConstShape(const Tensor& t) {
  std::vector<int64_t> shape;
  for (const Expr& d : t.shape()) {
    const int64_t* v = ir::AsConstInt(d);
    TESSERA_USER_CHECK(v) << "reference evaluator: tensor '" << t.name()
                          << "' has a symbolic shape";
    shape.push_back(*v);
  }
  return shape;
}

void ReferenceEvaluator::SetInput(const Tensor& t, std::vector<double> values) {
  TESSERA_USER_CHECK(t.op().as<PlaceholderOpNode>())
      << "SetInput: '" << t.name() << "' is not a placeholder";
  int64_t n = 1;
  for (int64_t d : ConstShape(t)) n *= d;
  TESSERA_USER_CHECK(static_cast<int64_t>(values.size()) == n)
      << "SetInput: '" << t.name() << "' has " << n << " elements, got " << values.size();
  values_[t.op().get()] = std::move(values);
}

const std::vector<double>& ReferenceEvaluator::Compute(const Tensor& t) {
  auto it = values_.find(t.op().get());
  if (it != values_.end()) return it->second;
  const auto* c = t.op().as<ComputeOpNode>();
  TESSERA_USER_CHECK(c) << "reference evaluator: no contents for placeholder '" << t.name() << "'";
  std::vector<int64_t> shape = ConstShape(t);
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<double> out(static_cast<size_t>(n));
  std::unordered_map<const ir::Object*, double> env;
  Interpreter interp(this, &env);
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t rem = flat;
    for (size_t d = shape.size(); d-- > 0;) {
      idx[d] = rem % shape[d];
      rem /= shape[d];
    }
    for (size_t d = 0; d < shape.size(); ++d)
      env[c->axis[d]->var.get()] = static_cast<double>(idx[d]);
    out[flat] = Round(t.dtype(), interp.Eval(c->body));
  }
  return values_[t.op().get()] = std::move(out);
}

}  // namespace te
}  // namespace tessera
