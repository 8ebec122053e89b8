#include "compiler/arith/const_int_bound.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>

#include "compiler/ir/builtin.h"
#include "compiler/ir/functor.h"

namespace tessera {
namespace arith {

namespace {

using ir::DataType;
using B = ConstIntBound;

int64_t Saturate(__int128 v) {
  if (v >= static_cast<__int128>(B::kPosInf)) return B::kPosInf;
  if (v <= static_cast<__int128>(B::kNegInf)) return B::kNegInf;
  return static_cast<int64_t>(v);
}

// Infinite ends behave like very large magnitudes; products of an infinity saturate.
int64_t AddEnds(int64_t a, int64_t b) {
  if (a == B::kNegInf || b == B::kNegInf) return B::kNegInf;
  if (a == B::kPosInf || b == B::kPosInf) return B::kPosInf;
  return Saturate(static_cast<__int128>(a) + b);
}

int64_t MulEnds(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  bool inf = a == B::kNegInf || a == B::kPosInf || b == B::kNegInf || b == B::kPosInf;
  bool negative = (a < 0) != (b < 0);
  if (inf) return negative ? B::kNegInf : B::kPosInf;
  return Saturate(static_cast<__int128>(a) * b);
}

int64_t Neg(int64_t a) {
  if (a == B::kNegInf) return B::kPosInf;
  if (a == B::kPosInf) return B::kNegInf;
  return -a;
}

int64_t FloorDivEnd(int64_t a, int64_t c) {
  if (a == B::kNegInf || a == B::kPosInf) return c > 0 ? a : Neg(a);
  int64_t q = a / c;
  if ((a % c != 0) && ((a < 0) != (c < 0))) --q;
  return q;
}

B Everything() { return B{}; }

// A positive number that `e` is provably a multiple of (1 when nothing is known), from its form:
// the split of a vectorized loop leaves bases like `lo*16`.
int64_t KnownDivisor(const ir::Expr& e) {
  constexpr int64_t kMany = int64_t{1} << 40;  // zero's divisor, and a cap against overflow
  if (const int64_t* v = ir::AsConstInt(e)) {
    return *v == 0 ? kMany : std::min<int64_t>(std::abs(*v), kMany);
  }
  if (const auto* m = e.as<ir::MulNode>()) {
    const int64_t a = KnownDivisor(m->a), b = KnownDivisor(m->b);
    return a > kMany / b ? kMany : a * b;
  }
  if (e.as<ir::AddNode>() || e.as<ir::SubNode>()) {
    const auto* bin = ir::AsBinary(e);
    return std::gcd(KnownDivisor(bin->a), KnownDivisor(bin->b));
  }
  return 1;
}

B TypeRange(DataType t) {
  if (t.is_bool()) return B{0, 1};
  if (t.is_uint() && t.bits() < 64) return B{0, (int64_t{1} << t.bits()) - 1};
  if (t.is_int() && t.bits() < 64)
    return B{-(int64_t{1} << (t.bits() - 1)), (int64_t{1} << (t.bits() - 1)) - 1};
  return Everything();
}

class Evaluator : public ir::ExprVisitor {
 public:
  explicit Evaluator(const VarBoundMap& vars) : vars_(vars) {}

  B Eval(const ir::Expr& e) {
    VisitExpr(e);
    return result_;
  }

  void VisitExpr_(const ir::IntImmNode* op) override { result_ = B{op->value, op->value}; }
  void VisitExpr_(const ir::VarNode* op) override {
    auto it = vars_.find(op);
    result_ = it != vars_.end() ? it->second : TypeRange(op->dtype);
  }
  void VisitExpr_(const ir::BinaryNode* op) override {
    if (op->dtype.is_bool() && op->kind() >= ir::kEQ) {
      EvalCompare(op);
      return;
    }
    B a = Eval(op->a), b = Eval(op->b);
    switch (op->kind()) {
      case ir::kAdd:
        result_ = B{AddEnds(a.min, b.min), AddEnds(a.max, b.max)};
        break;
      case ir::kSub:
        result_ = B{AddEnds(a.min, Neg(b.max)), AddEnds(a.max, Neg(b.min))};
        break;
      case ir::kMul: {
        int64_t c[4] = {MulEnds(a.min, b.min), MulEnds(a.min, b.max), MulEnds(a.max, b.min),
                        MulEnds(a.max, b.max)};
        result_ = B{*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
        break;
      }
      case ir::kFloorDiv:
      case ir::kDiv:
        if (b.is_const() && b.min > 0 && (op->kind() == ir::kFloorDiv || a.min >= 0)) {
          result_ = B{FloorDivEnd(a.min, b.min), FloorDivEnd(a.max, b.min)};
        } else if (b.min > 0 && a.min >= 0) {
          result_ = B{0, a.max};
        } else {
          result_ = Everything();
        }
        break;
      case ir::kFloorMod:
        if (b.min > 0 && b.max != B::kPosInf) {
          if (b.is_const() && a.min != B::kNegInf && a.max != B::kPosInf &&
              FloorDivEnd(a.min, b.min) == FloorDivEnd(a.max, b.min)) {
            int64_t shift = FloorDivEnd(a.min, b.min) * b.min;
            result_ = B{a.min - shift, a.max - shift};
          } else if (b.is_const()) {
            // A multiple of g, with g dividing b, leaves a multiple of g below b: at most b - g.
            result_ = B{0, b.min - std::gcd(KnownDivisor(op->a), b.min)};
          } else {
            result_ = B{0, b.max - 1};
          }
        } else {
          result_ = Everything();
        }
        break;
      case ir::kMod:
        if (a.min >= 0 && b.min > 0 && b.max != B::kPosInf) {
          result_ = B{0, std::min(a.max, b.max - 1)};
        } else {
          result_ = Everything();
        }
        break;
      case ir::kMin:
        result_ = B{std::min(a.min, b.min), std::min(a.max, b.max)};
        break;
      case ir::kMax:
        result_ = B{std::max(a.min, b.min), std::max(a.max, b.max)};
        break;
      default:
        result_ = TypeRange(op->dtype);
        break;
    }
  }
  void EvalCompare(const ir::BinaryNode* op) {
    if (op->kind() == ir::kAnd || op->kind() == ir::kOr) {
      B a = Eval(op->a), b = Eval(op->b);
      if (op->kind() == ir::kAnd)
        result_ = B{std::min(a.min, b.min), std::min(a.max, b.max)};
      else
        result_ = B{std::max(a.min, b.min), std::max(a.max, b.max)};
      return;
    }
    if (!op->a.dtype().is_integer() && !op->a.dtype().is_bool()) {
      result_ = B{0, 1};
      return;
    }
    B a = Eval(op->a), b = Eval(op->b);
    bool always = false, never = false;
    switch (op->kind()) {
      case ir::kLT:
        always = a.max < b.min;
        never = a.min >= b.max;
        break;
      case ir::kLE:
        always = a.max <= b.min;
        never = a.min > b.max;
        break;
      case ir::kGT:
        always = a.min > b.max;
        never = a.max <= b.min;
        break;
      case ir::kGE:
        always = a.min >= b.max;
        never = a.max < b.min;
        break;
      case ir::kEQ:
        always = a.is_const() && b.is_const() && a.min == b.min;
        never = a.max < b.min || a.min > b.max;
        break;
      case ir::kNE:
        never = a.is_const() && b.is_const() && a.min == b.min;
        always = a.max < b.min || a.min > b.max;
        break;
      default:
        break;
    }
    result_ = always ? B{1, 1} : never ? B{0, 0} : B{0, 1};
  }
  void VisitExpr_(const ir::NotNode* op) override {
    B a = Eval(op->a);
    result_ = B{1 - std::min<int64_t>(a.max, 1), 1 - std::max<int64_t>(a.min, 0)};
  }
  void VisitExpr_(const ir::SelectNode* op) override {
    B c = Eval(op->condition);
    B t = Eval(op->true_value), f = Eval(op->false_value);
    if (c.min == 1)
      result_ = t;
    else if (c.max == 0)
      result_ = f;
    else
      result_ = B{std::min(t.min, f.min), std::max(t.max, f.max)};
  }
  void VisitExpr_(const ir::CastNode* op) override {
    if (op->value.dtype().is_float()) {
      result_ = TypeRange(op->dtype);
      return;
    }
    B v = Eval(op->value);
    B t = TypeRange(op->dtype);
    result_ = (v.min >= t.min && v.max <= t.max) ? v : t;
  }
  void VisitExpr_(const ir::RampNode* op) override {
    B base = Eval(op->base), stride = Eval(op->stride);
    B last{AddEnds(base.min, MulEnds(stride.min, op->lanes - 1)),
           AddEnds(base.max, MulEnds(stride.max, op->lanes - 1))};
    result_ = B{std::min(base.min, last.min), std::max(base.max, last.max)};
  }
  void VisitExpr_(const ir::BroadcastNode* op) override { result_ = Eval(op->value); }
  void VisitExpr_(const ir::CallNode* op) override {
    if ((op->name == ir::builtin::kLikely) && op->args.size() == 1) {
      result_ = Eval(op->args[0]);
    } else if (op->name == ir::builtin::kIfThenElse && op->args.size() == 3) {
      B t = Eval(op->args[1]), f = Eval(op->args[2]);
      result_ = B{std::min(t.min, f.min), std::max(t.max, f.max)};
    } else {
      result_ = TypeRange(op->dtype);
    }
  }
  void VisitExpr_(const ir::LetNode* op) override { result_ = Eval(op->body); }
  void VisitExpr_(const ir::LoadNode* op) override { result_ = TypeRange(op->dtype); }
  void VisitExpr_(const ir::FloatImmNode*) override { result_ = Everything(); }
  void VisitExpr_(const ir::StringImmNode*) override { result_ = Everything(); }
  void VisitExpr_(const ir::ProducerLoadNode* op) override { result_ = TypeRange(op->dtype); }
  void VisitExpr_(const ir::ReduceNode*) override { result_ = Everything(); }

 private:
  const VarBoundMap& vars_;
  B result_;
};

}  // namespace

ConstIntBound EvalConstIntBound(const ir::Expr& e, const VarBoundMap& vars) {
  return Evaluator(vars).Eval(e);
}

}  // namespace arith
}  // namespace tessera
