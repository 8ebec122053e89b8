#include "compiler/arith/int_set.h"

#include "compiler/ir/builtin.h"
#include "compiler/ir/functor.h"
#include "compiler/ir/op.h"

namespace tessera {
namespace arith {

namespace {

using ir::Expr;

class UsesVars : public ir::ExprVisitor {
 public:
  explicit UsesVars(const VarIntervalMap& vars) : vars_(vars) {}
  bool found = false;
  void VisitExpr_(const ir::VarNode* op) override { found = found || vars_.count(op); }

 private:
  const VarIntervalMap& vars_;
};

class Evaluator {
 public:
  Evaluator(const VarIntervalMap& vars, const Analyzer& analyzer)
      : vars_(vars), analyzer_(analyzer) {}

  IntervalSet Eval(const Expr& e) {
    UsesVars uses(vars_);
    uses.VisitExpr(e);
    if (!uses.found) return IntervalSet::Point(e);
    if (const auto* v = e.as<ir::VarNode>()) return vars_.at(v);
    if (const auto* add = e.as<ir::AddNode>()) return Combine(Eval(add->a), Eval(add->b), false);
    if (const auto* sub = e.as<ir::SubNode>()) return Combine(Eval(sub->a), Eval(sub->b), true);
    if (const auto* mul = e.as<ir::MulNode>()) return Mul(mul->a, mul->b);
    if (const auto* div = e.as<ir::FloorDivNode>()) return FloorDiv(Eval(div->a), div->b);
    if (const auto* mod = e.as<ir::FloorModNode>()) return FloorMod(div_or_mod_arg(mod->a), mod->b);
    if (const auto* mn = e.as<ir::MinNode>()) {
      IntervalSet a = Eval(mn->a), b = Eval(mn->b);
      return {Both(a.min, b.min, true), Both(a.max, b.max, true)};
    }
    if (const auto* mx = e.as<ir::MaxNode>()) {
      IntervalSet a = Eval(mx->a), b = Eval(mx->b);
      return {Both(a.min, b.min, false), Both(a.max, b.max, false)};
    }
    if (const auto* sel = e.as<ir::SelectNode>())
      return Union(Eval(sel->true_value), Eval(sel->false_value), analyzer_);
    if (const auto* call = e.as<ir::CallNode>()) {
      if (call->name == ir::builtin::kIfThenElse)
        return Union(Eval(call->args[1]), Eval(call->args[2]), analyzer_);
    }
    if (const auto* cast = e.as<ir::CastNode>()) {
      if (cast->value.dtype().is_integer() && cast->dtype.is_integer()) {
        IntervalSet v = Eval(cast->value);
        return {v.min.defined() ? ir::cast(cast->dtype, v.min) : Expr(),
                v.max.defined() ? ir::cast(cast->dtype, v.max) : Expr()};
      }
    }
    return Fallback(e);
  }

 private:
  IntervalSet div_or_mod_arg(const Expr& e) { return Eval(e); }

  // Bounds from constant reasoning when symbolic rules do not apply.
  IntervalSet Fallback(const Expr& e) {
    VarBoundMap bounds = analyzer_.bounds();
    for (const auto& kv : vars_) {
      ConstIntBound b;
      if (kv.second.min.defined()) b.min = analyzer_.Bound(kv.second.min).min;
      if (kv.second.max.defined()) b.max = analyzer_.Bound(kv.second.max).max;
      bounds[kv.first] = b;
    }
    ConstIntBound b = EvalConstIntBound(e, bounds);
    IntervalSet r;
    if (b.min != ConstIntBound::kNegInf) r.min = ir::IntImm(e.dtype(), b.min);
    if (b.max != ConstIntBound::kPosInf) r.max = ir::IntImm(e.dtype(), b.max);
    return r;
  }

  Expr Simp(const Expr& e) { return analyzer_.Simplify(e); }

  Expr Both(const Expr& a, const Expr& b, bool take_min) {
    if (!a.defined() || !b.defined()) {
      // min with an unbounded-below side is unbounded below; max likewise above.
      return Expr();
    }
    return Simp(take_min ? ir::min(a, b) : ir::max(a, b));
  }

  IntervalSet Combine(const IntervalSet& a, const IntervalSet& b, bool subtract) {
    IntervalSet r;
    if (!subtract) {
      if (a.min.defined() && b.min.defined()) r.min = Simp(a.min + b.min);
      if (a.max.defined() && b.max.defined()) r.max = Simp(a.max + b.max);
    } else {
      if (a.min.defined() && b.max.defined()) r.min = Simp(a.min - b.max);
      if (a.max.defined() && b.min.defined()) r.max = Simp(a.max - b.min);
    }
    return r;
  }

  IntervalSet Mul(const Expr& x, const Expr& y) {
    IntervalSet a = Eval(x), b = Eval(y);
    const Expr* scale = nullptr;
    const IntervalSet* other = nullptr;
    if (a.min.defined() && a.min.same_as(a.max)) {
      scale = &a.min;
      other = &b;
    } else if (b.min.defined() && b.min.same_as(b.max)) {
      scale = &b.min;
      other = &a;
    }
    if (scale) {
      ConstIntBound sb = analyzer_.Bound(*scale);
      if (sb.min >= 0) {
        return {other->min.defined() ? Simp(other->min * *scale) : Expr(),
                other->max.defined() ? Simp(other->max * *scale) : Expr()};
      }
      if (sb.max <= 0) {
        return {other->max.defined() ? Simp(other->max * *scale) : Expr(),
                other->min.defined() ? Simp(other->min * *scale) : Expr()};
      }
    }
    return Fallback(ir::Mul(x, y));
  }

  IntervalSet FloorDiv(const IntervalSet& a, const Expr& divisor) {
    ConstIntBound d = analyzer_.Bound(divisor);
    if (d.min > 0 && d.is_const()) {
      return {a.min.defined() ? Simp(ir::floordiv(a.min, divisor)) : Expr(),
              a.max.defined() ? Simp(ir::floordiv(a.max, divisor)) : Expr()};
    }
    return IntervalSet();
  }

  IntervalSet FloorMod(const IntervalSet& a, const Expr& divisor) {
    ConstIntBound d = analyzer_.Bound(divisor);
    if (!(d.min > 0 && d.is_const())) return IntervalSet();
    if (a.bounded()) {
      Expr qmin = Simp(ir::floordiv(a.min, divisor)), qmax = Simp(ir::floordiv(a.max, divisor));
      if (analyzer_.CanProve(qmin == qmax)) {
        return {Simp(a.min - qmin * divisor), Simp(a.max - qmin * divisor)};
      }
    }
    return {ir::IntImm(divisor.dtype(), 0), ir::IntImm(divisor.dtype(), d.max - 1)};
  }

  const VarIntervalMap& vars_;
  const Analyzer& analyzer_;
};

}  // namespace

IntervalSet IntervalSet::FromRange(const ir::Range& range) {
  return {range.min, range.min + range.extent - 1};
}

IntervalSet EvalIntervalSet(const Expr& e, const VarIntervalMap& vars, const Analyzer& analyzer) {
  return Evaluator(vars, analyzer).Eval(e);
}

IntervalSet Union(const IntervalSet& a, const IntervalSet& b, const Analyzer& analyzer) {
  IntervalSet r;
  if (a.min.defined() && b.min.defined()) r.min = analyzer.Simplify(ir::min(a.min, b.min));
  if (a.max.defined() && b.max.defined()) r.max = analyzer.Simplify(ir::max(a.max, b.max));
  return r;
}

}  // namespace arith
}  // namespace tessera
