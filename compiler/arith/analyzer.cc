#include "compiler/arith/analyzer.h"

#include <vector>

#include "compiler/ir/builtin.h"
#include "compiler/ir/functor.h"
#include "compiler/ir/op.h"
#include "compiler/ir/structural_equal.h"

namespace tessera {
namespace arith {

namespace {

using ir::DataType;
using ir::Expr;

int64_t FloorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// sum(coef_i * term_i) + constant over a scalar integer type.
struct LinearForm {
  struct Term {
    Expr term;
    int64_t coef;
  };
  std::vector<Term> terms;
  int64_t constant = 0;

  void AddTerm(const Expr& t, int64_t coef) {
    for (Term& x : terms) {
      if (ir::StructuralEqual(x.term, t)) {
        x.coef += coef;
        return;
      }
    }
    terms.push_back({t, coef});
  }
  void Add(const LinearForm& o, int64_t scale) {
    for (const Term& t : o.terms) AddTerm(t.term, t.coef * scale);
    constant += o.constant * scale;
  }
};

LinearForm ToLinear(const Expr& e) {
  LinearForm f;
  if (const auto* imm = e.as<ir::IntImmNode>()) {
    f.constant = imm->value;
  } else if (const auto* add = e.as<ir::AddNode>()) {
    f = ToLinear(add->a);
    f.Add(ToLinear(add->b), 1);
  } else if (const auto* sub = e.as<ir::SubNode>()) {
    f = ToLinear(sub->a);
    f.Add(ToLinear(sub->b), -1);
  } else if (const auto* mul = e.as<ir::MulNode>()) {
    if (const int64_t* c = ir::AsConstInt(mul->b)) {
      f.Add(ToLinear(mul->a), *c);
    } else if (const int64_t* c2 = ir::AsConstInt(mul->a)) {
      f.Add(ToLinear(mul->b), *c2);
    } else {
      f.AddTerm(e, 1);
    }
  } else {
    f.AddTerm(e, 1);
  }
  return f;
}

Expr FromLinear(const LinearForm& f, DataType t) {
  Expr result;
  auto term_expr = [&](const Expr& term, int64_t coef) {
    return coef == 1 ? term : ir::Mul(term, ir::IntImm(t, coef));
  };
  for (const auto& x : f.terms) {
    if (x.coef <= 0) continue;
    Expr te = term_expr(x.term, x.coef);
    result = result.defined() ? ir::Add(result, te) : te;
  }
  for (const auto& x : f.terms) {
    if (x.coef >= 0) continue;
    Expr te = term_expr(x.term, -x.coef);
    result = result.defined() ? ir::Sub(result, te) : ir::Mul(x.term, ir::IntImm(t, x.coef));
  }
  if (!result.defined()) return ir::IntImm(t, f.constant);
  if (f.constant > 0) result = ir::Add(result, ir::IntImm(t, f.constant));
  if (f.constant < 0) result = ir::Sub(result, ir::IntImm(t, -f.constant));
  return result;
}

bool IsScalarInt(const Expr& e) { return e.dtype().is_integer() && e.dtype().is_scalar(); }

class Simplifier : public ir::ExprMutator {
 public:
  explicit Simplifier(const VarBoundMap& bounds) : bounds_(bounds) {}

  ConstIntBound Bound(const Expr& e) { return EvalConstIntBound(e, bounds_); }

  Expr VisitExpr_(const ir::BinaryNode* op) override {
    Expr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (a.dtype().is_integer() && a.dtype().is_vector()) {
      Expr folded = SimplifyLaneAffine(op->kind(), a, b);
      if (folded.defined()) return folded;
    }
    const int64_t* ca = IsScalarInt(a) ? ir::AsConstInt(a) : nullptr;
    const int64_t* cb = IsScalarInt(b) ? ir::AsConstInt(b) : nullptr;
    switch (op->kind()) {
      case ir::kAdd:
      case ir::kSub:
      case ir::kMul:
        if (IsScalarInt(a)) return Linear(ir::RebuildBinary(op, a, b));
        if (a.dtype().is_scalar()) return FoldFloat(op, a, b);
        break;
      case ir::kFloorDiv:
        if (cb && *cb > 0 && IsScalarInt(a)) return SimplifyFloorDiv(a, *cb);
        if (ca && cb && *cb != 0) return ir::IntImm(a.dtype(), FloorDivInt(*ca, *cb));
        break;
      case ir::kFloorMod:
        if (cb && *cb > 0 && IsScalarInt(a)) return SimplifyFloorMod(a, *cb);
        break;
      case ir::kDiv:
        if (cb && *cb > 0 && IsScalarInt(a) && Bound(a).min >= 0) return SimplifyFloorDiv(a, *cb);
        if (a.dtype().is_scalar() && a.dtype().is_float()) return FoldFloat(op, a, b);
        break;
      case ir::kMod:
        if (cb && *cb > 0 && IsScalarInt(a) && Bound(a).min >= 0) return SimplifyFloorMod(a, *cb);
        break;
      case ir::kMin:
      case ir::kMax:
        if (IsScalarInt(a)) {
          ConstIntBound d = Bound(Linear(ir::Sub(a, b)));
          bool a_le_b = d.max <= 0, b_le_a = d.min >= 0;
          if (op->kind() == ir::kMin && (a_le_b || b_le_a)) return a_le_b ? a : b;
          if (op->kind() == ir::kMax && (a_le_b || b_le_a)) return a_le_b ? b : a;
        }
        break;
      case ir::kLT:
      case ir::kLE:
      case ir::kGT:
      case ir::kGE:
      case ir::kEQ:
      case ir::kNE:
        if (IsScalarInt(a)) {
          Expr diff = Linear(ir::Sub(a, b));
          ConstIntBound d = Bound(diff);
          int decided = Decide(op->kind(), d);
          if (decided >= 0) return ir::IntImm(DataType::Bool(), decided);
        }
        break;
      case ir::kAnd:
        if (ir::IsConstInt(a, 0) || ir::IsConstInt(b, 0)) return ir::IntImm(op->dtype, 0);
        if (ir::IsConstInt(a, 1)) return b;
        if (ir::IsConstInt(b, 1)) return a;
        break;
      case ir::kOr:
        if (ir::IsConstInt(a, 1) || ir::IsConstInt(b, 1)) return ir::IntImm(op->dtype, 1);
        if (ir::IsConstInt(a, 0)) return b;
        if (ir::IsConstInt(b, 0)) return a;
        break;
      default:
        break;
    }
    if (a.same_as(op->a) && b.same_as(op->b)) return Expr(op);
    return ir::RebuildBinary(op, a, b);
  }

  Expr VisitExpr_(const ir::NotNode* op) override {
    Expr a = VisitExpr(op->a);
    if (const auto* imm = a.as<ir::IntImmNode>()) return ir::IntImm(op->dtype, !imm->value);
    return a.same_as(op->a) ? Expr(op) : ir::Not(a);
  }

  Expr VisitExpr_(const ir::SelectNode* op) override {
    Expr c = VisitExpr(op->condition);
    // A vectorized select keeps a loop-invariant condition as a broadcast of one lane.
    const auto* broadcast = c.as<ir::BroadcastNode>();
    const Expr& lane = broadcast ? broadcast->value : c;
    if (ir::IsConstInt(lane, 1) && lane.dtype().is_scalar()) return VisitExpr(op->true_value);
    if (ir::IsConstInt(lane, 0) && lane.dtype().is_scalar()) return VisitExpr(op->false_value);
    Expr t = VisitExpr(op->true_value), f = VisitExpr(op->false_value);
    if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value))
      return Expr(op);
    return ir::Select(c, t, f);
  }

  Expr VisitExpr_(const ir::CastNode* op) override {
    Expr v = VisitExpr(op->value);
    if (op->dtype.is_scalar() && (v.as<ir::IntImmNode>() || v.as<ir::FloatImmNode>())) {
      return ir::cast(op->dtype, v);
    }
    return v.same_as(op->value) ? Expr(op) : ir::Cast(op->dtype, v);
  }

  Expr VisitExpr_(const ir::CallNode* op) override {
    Expr result = ir::ExprMutator::VisitExpr_(op);
    const auto* call = result.as<ir::CallNode>();
    if (call && call->name == ir::builtin::kLikely && call->args[0].as<ir::IntImmNode>())
      return call->args[0];
    if (call && call->name == ir::builtin::kIfThenElse) {
      if (ir::IsConstInt(call->args[0], 1)) return call->args[1];
      if (ir::IsConstInt(call->args[0], 0)) return call->args[2];
    }
    return result;
  }

 private:
  static int Decide(uint32_t kind, ConstIntBound d) {
    switch (kind) {
      case ir::kLT:
        return d.max < 0 ? 1 : d.min >= 0 ? 0 : -1;
      case ir::kLE:
        return d.max <= 0 ? 1 : d.min > 0 ? 0 : -1;
      case ir::kGT:
        return d.min > 0 ? 1 : d.max <= 0 ? 0 : -1;
      case ir::kGE:
        return d.min >= 0 ? 1 : d.max < 0 ? 0 : -1;
      case ir::kEQ:
        return (d.min == 0 && d.max == 0) ? 1 : (d.min > 0 || d.max < 0) ? 0 : -1;
      case ir::kNE:
        return (d.min == 0 && d.max == 0) ? 0 : (d.min > 0 || d.max < 0) ? 1 : -1;
    }
    return -1;
  }

  Expr FoldFloat(const ir::BinaryNode* op, const Expr& a, const Expr& b) {
    const auto* fa = a.as<ir::FloatImmNode>();
    const auto* fb = b.as<ir::FloatImmNode>();
    if (fa && fb) {
      switch (op->kind()) {
        case ir::kAdd:
          return ir::FloatImm(a.dtype(), fa->value + fb->value);
        case ir::kSub:
          return ir::FloatImm(a.dtype(), fa->value - fb->value);
        case ir::kMul:
          return ir::FloatImm(a.dtype(), fa->value * fb->value);
        default:
          break;
      }
    }
    if (a.same_as(op->a) && b.same_as(op->b)) return Expr(op);
    return ir::RebuildBinary(op, a, b);
  }

  // An integer vector whose lane i is `base + i * stride` with a constant stride.
  struct LaneAffine {
    Expr base;
    int64_t stride;
  };

  static bool AsLaneAffine(const Expr& e, LaneAffine* out) {
    if (const auto* ramp = e.as<ir::RampNode>()) {
      const int64_t* stride = ir::AsConstInt(ramp->stride);
      if (stride == nullptr) return false;
      *out = {ramp->base, *stride};
      return true;
    }
    if (const auto* broadcast = e.as<ir::BroadcastNode>()) {
      *out = {broadcast->value, 0};
      return true;
    }
    return false;
  }

  Expr MakeLaneAffine(const LaneAffine& v, int lanes) {
    Expr base = VisitExpr(v.base);
    if (v.stride == 0) return ir::Broadcast(base, lanes);
    return ir::Ramp(base, ir::IntImm(base.dtype(), v.stride), lanes);
  }

  // Index arithmetic on Ramp/Broadcast vectors (what vectorized loops produce) folded back into
  // one Ramp or Broadcast, so code generators see contiguous accesses instead of gathers.
  // Returns a null expression when no rule applies.
  Expr SimplifyLaneAffine(uint32_t kind, const Expr& a, const Expr& b) {
    LaneAffine x, y;
    if (!AsLaneAffine(a, &x) || !AsLaneAffine(b, &y)) return Expr();
    const int lanes = a.dtype().lanes();
    switch (kind) {
      case ir::kAdd:
        return MakeLaneAffine({ir::Add(x.base, y.base), x.stride + y.stride}, lanes);
      case ir::kSub:
        return MakeLaneAffine({ir::Sub(x.base, y.base), x.stride - y.stride}, lanes);
      case ir::kMul: {
        if (x.stride == 0 && y.stride == 0)
          return MakeLaneAffine({ir::Mul(x.base, y.base), 0}, lanes);
        const LaneAffine& ramp = x.stride != 0 ? x : y;
        const LaneAffine& scale = x.stride != 0 ? y : x;
        const int64_t* c = scale.stride == 0 ? ir::AsConstInt(scale.base) : nullptr;
        if (c == nullptr) return Expr();
        return MakeLaneAffine({ir::Mul(ramp.base, scale.base), ramp.stride * *c}, lanes);
      }
      case ir::kFloorDiv:
      case ir::kFloorMod: {
        const int64_t* c = y.stride == 0 ? ir::AsConstInt(y.base) : nullptr;
        if (c == nullptr || *c <= 0 || x.stride < 0) return Expr();
        const bool div = kind == ir::kFloorDiv;
        if (x.stride == 0) {
          Expr scalar = div ? ir::FloorDiv(x.base, y.base) : ir::FloorMod(x.base, y.base);
          return MakeLaneAffine({scalar, 0}, lanes);
        }
        // All lanes fall into one block of c when base mod c leaves room for the whole ramp.
        Expr base = VisitExpr(x.base);
        Expr remainder = SimplifyFloorMod(base, *c);
        if (Bound(remainder).max + x.stride * (lanes - 1) >= *c) return Expr();
        if (div) return MakeLaneAffine({SimplifyFloorDiv(base, *c), 0}, lanes);
        return MakeLaneAffine({remainder, x.stride}, lanes);
      }
      default:
        return Expr();
    }
  }

  Expr Linear(const Expr& e) {
    LinearForm f = ToLinear(e);
    FoldDivisionIdentity(&f);
    std::vector<LinearForm::Term> kept;
    for (const auto& t : f.terms)
      if (t.coef != 0) kept.push_back(t);
    f.terms = kept;
    return FromLinear(f, e.dtype());
  }

  // k*c*floordiv(x, c) + k*floormod(x, c) = k*x: an index flattened and unflattened again (a
  // fused epilogue reading a [1, 56, 56, n] result of a [3136, n] product by its row) comes back
  // to the row itself, which bound inference then sees as the tile it is.
  static void FoldDivisionIdentity(LinearForm* f) {
    for (bool folded = true; folded;) {
      folded = false;
      for (size_t i = 0; i < f->terms.size() && !folded; ++i) {
        const auto* div = f->terms[i].term.as<ir::FloorDivNode>();
        const int64_t* c = div ? ir::AsConstInt(div->b) : nullptr;
        if (!c || *c <= 0 || f->terms[i].coef == 0) continue;
        for (size_t j = 0; j < f->terms.size() && !folded; ++j) {
          const auto* mod = f->terms[j].term.as<ir::FloorModNode>();
          const int64_t* cm = mod ? ir::AsConstInt(mod->b) : nullptr;
          const int64_t k = f->terms[j].coef;
          if (!cm || *cm != *c || k == 0 || f->terms[i].coef != k * *c ||
              !ir::StructuralEqual(div->a, mod->a)) {
            continue;
          }
          const Expr x = div->a;
          f->terms[i].coef = 0;
          f->terms[j].coef = 0;
          f->Add(ToLinear(x), k);
          folded = true;
        }
      }
    }
  }

  // floordiv(c*q + r, c) = q + floordiv(r, c) holds for all integers; r's bound often decides
  // the remaining division.
  void SplitByDivisor(const Expr& a, int64_t c, LinearForm* quotient, LinearForm* rest) {
    LinearForm f = ToLinear(a);
    for (const auto& t : f.terms) {
      if (t.coef == 0) continue;
      if (t.coef % c == 0)
        quotient->AddTerm(t.term, t.coef / c);
      else
        rest->AddTerm(t.term, t.coef);
    }
    quotient->constant = FloorDivInt(f.constant, c);
    rest->constant = f.constant - quotient->constant * c;
  }

  // Splits `a` into q * c + rest. True when rest's bounds keep it inside one window
  // [window * c, (window + 1) * c), where floordiv and floormod by c are constants.
  bool SplitIntoWindow(const Expr& a, int64_t c, LinearForm* q, Expr* rest, int64_t* window) {
    LinearForm r;
    SplitByDivisor(a, c, q, &r);
    *rest = FromLinear(r, a.dtype());
    ConstIntBound rb = Bound(*rest);
    if (rb.min == ConstIntBound::kNegInf || rb.max == ConstIntBound::kPosInf ||
        FloorDivInt(rb.min, c) != FloorDivInt(rb.max, c)) {
      return false;
    }
    *window = FloorDivInt(rb.min, c);
    return true;
  }

  Expr SimplifyFloorDiv(const Expr& a, int64_t c) {
    DataType t = a.dtype();
    if (c == 1) return a;
    if (const auto* inner = a.as<ir::FloorDivNode>()) {
      const int64_t* c2 = ir::AsConstInt(inner->b);
      if (c2 && *c2 > 0) return SimplifyFloorDiv(inner->a, *c2 * c);
    }
    LinearForm q;
    Expr rest;
    int64_t window = 0;
    if (SplitIntoWindow(a, c, &q, &rest, &window)) {
      q.constant += window;
      return FromLinear(q, t);
    }
    if (q.terms.empty() && q.constant == 0) return ir::FloorDiv(rest, ir::IntImm(t, c));
    return Linear(ir::Add(FromLinear(q, t), ir::FloorDiv(rest, ir::IntImm(t, c))));
  }

  Expr SimplifyFloorMod(const Expr& a, int64_t c) {
    DataType t = a.dtype();
    if (c == 1) return ir::IntImm(t, 0);
    if (const auto* inner = a.as<ir::FloorModNode>()) {
      const int64_t* c2 = ir::AsConstInt(inner->b);
      if (c2 && *c2 > 0 && *c2 % c == 0) return SimplifyFloorMod(inner->a, c);
    }
    LinearForm q;
    Expr rest;
    int64_t window = 0;
    if (SplitIntoWindow(a, c, &q, &rest, &window)) {
      return Linear(ir::Sub(rest, ir::IntImm(t, window * c)));
    }
    return ir::FloorMod(rest, ir::IntImm(t, c));
  }

  const VarBoundMap& bounds_;
};

}  // namespace

void Analyzer::Bind(const ir::Var& var, const ir::Range& range) {
  ConstIntBound mn = Bound(range.min), ext = Bound(range.extent);
  ConstIntBound b;
  b.min = mn.min;
  if (mn.max != ConstIntBound::kPosInf && ext.max != ConstIntBound::kPosInf)
    b.max = mn.max + ext.max - 1;
  bounds_[var.get()] = b;
}

void Analyzer::Bind(const ir::Var& var, ConstIntBound bound) { bounds_[var.get()] = bound; }

void Analyzer::Unbind(const ir::Var& var) { bounds_.erase(var.get()); }

ConstIntBound Analyzer::Bound(const ir::Expr& e) const {
  return EvalConstIntBound(Simplify(e), bounds_);
}

ir::Expr Analyzer::Simplify(const ir::Expr& e) const {
  Simplifier s(bounds_);
  // A second round catches rewrites that expose new linear terms.
  return s.VisitExpr(s.VisitExpr(e));
}

bool Analyzer::CanProve(const ir::Expr& cond) const {
  Expr s = Simplify(cond);
  return ir::IsConstInt(s, 1) || EvalConstIntBound(s, bounds_).min >= 1;
}

}  // namespace arith
}  // namespace tessera
