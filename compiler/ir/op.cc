#include "compiler/ir/op.h"

#include <cmath>
#include <limits>

#include "compiler/ir/builtin.h"
#include "compiler/support/error.h"

namespace tessera {
namespace ir {

namespace {

int64_t FloorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t FloorModInt(int64_t a, int64_t b) { return a - FloorDivInt(a, b) * b; }

const double* AsConstFloat(const Expr& e) {
  if (const auto* f = e.as<FloatImmNode>()) return &f->value;
  return nullptr;
}

bool BothScalarInts(const Expr& a, const Expr& b) {
  return a.as<IntImmNode>() && b.as<IntImmNode>();
}

void CheckDefined(const char* op, const Expr& a, const Expr& b) {
  TESSERA_USER_CHECK(a.defined() && b.defined())
      << "operator " << op << " on an undefined expression";
}

}  // namespace

void PromoteTypes(const char* op, Expr* a, Expr* b) {
  CheckDefined(op, *a, *b);
  DataType ta = a->dtype(), tb = b->dtype();
  if (ta == tb) return;
  if (ta.lanes() != tb.lanes()) {
    TESSERA_USER_CHECK(ta.lanes() == 1 || tb.lanes() == 1)
        << "operator " << op << " on vectors of different lanes: " << ta << " and " << tb;
    if (ta.lanes() == 1)
      *a = Broadcast(*a, tb.lanes());
    else
      *b = Broadcast(*b, ta.lanes());
    ta = a->dtype();
    tb = b->dtype();
    if (ta == tb) return;
  }
  TESSERA_USER_CHECK(!ta.is_handle() && !tb.is_handle())
      << "operator " << op << " on a handle and " << (ta.is_handle() ? tb : ta);
  DataType target;
  if (ta.is_float() || tb.is_float()) {
    int bits = std::max(ta.is_float() ? ta.bits() : 0, tb.is_float() ? tb.bits() : 0);
    target = DataType::Float(bits, ta.lanes());
  } else if (ta.is_bool()) {
    target = tb;
  } else if (tb.is_bool()) {
    target = ta;
  } else {
    // Integer constants adopt the other side's type rather than widening it.
    if (a->as<IntImmNode>() && !b->as<IntImmNode>())
      target = tb;
    else if (b->as<IntImmNode>() && !a->as<IntImmNode>())
      target = ta;
    else
      target = ta.bits() >= tb.bits() ? ta : tb;
  }
  *a = cast(target, *a);
  *b = cast(target, *b);
}

Expr cast(DataType t, Expr value) {
  TESSERA_USER_CHECK(value.defined()) << "cast of an undefined expression";
  if (value.dtype() == t) return value;
  if (t.is_scalar()) {
    if (const auto* i = value.as<IntImmNode>()) {
      if (t.is_float()) return FloatImm(t, static_cast<double>(i->value));
      if (t.is_bool()) return IntImm(t, i->value != 0);
      if (!t.is_handle()) return IntImm(t, i->value);
    }
    if (const auto* f = value.as<FloatImmNode>()) {
      if (t.is_float()) return FloatImm(t, f->value);
    }
  }
  if (value.dtype().lanes() == 1 && t.lanes() > 1) {
    return Broadcast(cast(t.element_of(), value), t.lanes());
  }
  return Cast(t, value);
}

Expr operator+(Expr a, Expr b) {
  PromoteTypes("+", &a, &b);
  if (BothScalarInts(a, b))
    return IntImm(a.dtype(), a.as<IntImmNode>()->value + b.as<IntImmNode>()->value);
  if (IsConstInt(b, 0)) return a;
  if (IsConstInt(a, 0)) return b;
  if (AsConstFloat(a) && AsConstFloat(b))
    return FloatImm(a.dtype(), *AsConstFloat(a) + *AsConstFloat(b));
  return Add(a, b);
}

Expr operator-(Expr a, Expr b) {
  PromoteTypes("-", &a, &b);
  if (BothScalarInts(a, b))
    return IntImm(a.dtype(), a.as<IntImmNode>()->value - b.as<IntImmNode>()->value);
  if (IsConstInt(b, 0)) return a;
  if (AsConstFloat(a) && AsConstFloat(b))
    return FloatImm(a.dtype(), *AsConstFloat(a) - *AsConstFloat(b));
  return Sub(a, b);
}

Expr operator-(Expr a) {
  TESSERA_USER_CHECK(a.defined()) << "negation of an undefined expression";
  if (const auto* i = a.as<IntImmNode>()) return IntImm(a.dtype(), -i->value);
  if (const auto* f = a.as<FloatImmNode>()) return FloatImm(a.dtype(), -f->value);
  return const_like(a, 0) - a;
}

Expr operator*(Expr a, Expr b) {
  PromoteTypes("*", &a, &b);
  if (BothScalarInts(a, b))
    return IntImm(a.dtype(), a.as<IntImmNode>()->value * b.as<IntImmNode>()->value);
  if (IsConstInt(b, 1)) return a;
  if (IsConstInt(a, 1)) return b;
  if (a.dtype().is_integer() && (IsConstInt(a, 0) || IsConstInt(b, 0))) return const_like(a, 0);
  if (AsConstFloat(a) && AsConstFloat(b))
    return FloatImm(a.dtype(), *AsConstFloat(a) * *AsConstFloat(b));
  return Mul(a, b);
}

Expr operator/(Expr a, Expr b) {
  PromoteTypes("/", &a, &b);
  if (a.dtype().is_float()) return Div(a, b);
  return floordiv(a, b);
}

Expr operator%(Expr a, Expr b) { return floormod(a, b); }

Expr floordiv(Expr a, Expr b) {
  PromoteTypes("floordiv", &a, &b);
  TESSERA_USER_CHECK(a.dtype().is_integer()) << "floordiv of " << a.dtype() << " (integers only)";
  TESSERA_USER_CHECK(!IsConstInt(b, 0)) << "division by the constant zero";
  if (BothScalarInts(a, b))
    return IntImm(a.dtype(), FloorDivInt(a.as<IntImmNode>()->value, b.as<IntImmNode>()->value));
  if (IsConstInt(b, 1)) return a;
  return FloorDiv(a, b);
}

Expr floormod(Expr a, Expr b) {
  PromoteTypes("floormod", &a, &b);
  TESSERA_USER_CHECK(a.dtype().is_integer()) << "modulo of " << a.dtype() << " (integers only)";
  TESSERA_USER_CHECK(!IsConstInt(b, 0)) << "modulo by the constant zero";
  if (BothScalarInts(a, b))
    return IntImm(a.dtype(), FloorModInt(a.as<IntImmNode>()->value, b.as<IntImmNode>()->value));
  if (IsConstInt(b, 1)) return const_like(a, 0);
  return FloorMod(a, b);
}

Expr truncdiv(Expr a, Expr b) {
  PromoteTypes("truncdiv", &a, &b);
  TESSERA_USER_CHECK(a.dtype().is_integer()) << "truncdiv of " << a.dtype() << " (integers only)";
  TESSERA_USER_CHECK(!IsConstInt(b, 0)) << "division by the constant zero";
  if (BothScalarInts(a, b))
    return IntImm(a.dtype(), a.as<IntImmNode>()->value / b.as<IntImmNode>()->value);
  return Div(a, b);
}

Expr truncmod(Expr a, Expr b) {
  PromoteTypes("truncmod", &a, &b);
  TESSERA_USER_CHECK(a.dtype().is_integer()) << "truncmod of " << a.dtype() << " (integers only)";
  TESSERA_USER_CHECK(!IsConstInt(b, 0)) << "modulo by the constant zero";
  if (BothScalarInts(a, b))
    return IntImm(a.dtype(), a.as<IntImmNode>()->value % b.as<IntImmNode>()->value);
  return Mod(a, b);
}

Expr ceildiv(Expr a, Expr b) { return floordiv(a + b - const_like(b, 1), b); }

Expr min(Expr a, Expr b) {
  PromoteTypes("min", &a, &b);
  if (BothScalarInts(a, b))
    return IntImm(a.dtype(), std::min(a.as<IntImmNode>()->value, b.as<IntImmNode>()->value));
  return Min(a, b);
}

Expr max(Expr a, Expr b) {
  PromoteTypes("max", &a, &b);
  if (BothScalarInts(a, b))
    return IntImm(a.dtype(), std::max(a.as<IntImmNode>()->value, b.as<IntImmNode>()->value));
  return Max(a, b);
}

#define TESSERA_IR_CMP_OP(op, Name, fold)                                   \
  Expr operator op(Expr a, Expr b) {                                        \
    PromoteTypes(#op, &a, &b);                                              \
    if (BothScalarInts(a, b)) {                                             \
      int64_t x = a.as<IntImmNode>()->value, y = b.as<IntImmNode>()->value; \
      return IntImm(DataType::Bool(), fold);                                \
    }                                                                       \
    return Name(a, b);                                                      \
  }
TESSERA_IR_CMP_OP(==, EQ, x == y)
TESSERA_IR_CMP_OP(!=, NE, x != y)
TESSERA_IR_CMP_OP(<, LT, x < y)
TESSERA_IR_CMP_OP(<=, LE, x <= y)
TESSERA_IR_CMP_OP(>, GT, x > y)
TESSERA_IR_CMP_OP(>=, GE, x >= y)
#undef TESSERA_IR_CMP_OP

Expr operator&&(Expr a, Expr b) {
  CheckDefined("&&", a, b);
  TESSERA_USER_CHECK(a.dtype().is_bool() && b.dtype().is_bool())
      << "operator && on " << a.dtype() << " and " << b.dtype() << " (bools only)";
  if (IsConstInt(a, 1)) return b;
  if (IsConstInt(b, 1)) return a;
  if (IsConstInt(a, 0) || IsConstInt(b, 0)) return IntImm(DataType::Bool(), 0);
  PromoteTypes("&&", &a, &b);
  return And(a, b);
}

Expr operator||(Expr a, Expr b) {
  CheckDefined("||", a, b);
  TESSERA_USER_CHECK(a.dtype().is_bool() && b.dtype().is_bool())
      << "operator || on " << a.dtype() << " and " << b.dtype() << " (bools only)";
  if (IsConstInt(a, 0)) return b;
  if (IsConstInt(b, 0)) return a;
  if (IsConstInt(a, 1) || IsConstInt(b, 1)) return IntImm(DataType::Bool(), 1);
  PromoteTypes("||", &a, &b);
  return Or(a, b);
}

Expr operator!(Expr a) {
  TESSERA_USER_CHECK(a.defined() && a.dtype().is_bool()) << "operator ! on a non-bool expression";
  if (const auto* i = a.as<IntImmNode>()) return IntImm(DataType::Bool(), !i->value);
  return Not(a);
}

Expr select(Expr cond, Expr t, Expr f) {
  PromoteTypes("select", &t, &f);
  TESSERA_USER_CHECK(cond.defined() && cond.dtype().is_bool()) << "select condition must be a bool";
  if (IsConstInt(cond, 1)) return t;
  if (IsConstInt(cond, 0)) return f;
  return Select(cond, t, f);
}

Expr if_then_else(Expr cond, Expr t, Expr f) {
  PromoteTypes("if_then_else", &t, &f);
  TESSERA_USER_CHECK(cond.defined() && cond.dtype() == DataType::Bool())
      << "if_then_else condition must be a scalar bool";
  if (IsConstInt(cond, 1)) return t;
  if (IsConstInt(cond, 0)) return f;
  DataType type = t.dtype();
  return Call(type, builtin::kIfThenElse, {cond, t, f});
}

Expr likely(Expr cond) {
  if (cond.as<IntImmNode>()) return cond;
  return Call(cond.dtype(), builtin::kLikely, {cond});
}

Expr const_like(const Expr& like, double value) { return MakeConst(like.dtype(), value); }

Expr min_value(DataType t) {
  if (t.is_float()) return MakeConst(t, -std::numeric_limits<double>::infinity());
  if (t.is_int()) {
    int64_t v =
        t.bits() >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (t.bits() - 1));
    return t.is_vector() ? Broadcast(IntImm(t.element_of(), v), t.lanes()) : IntImm(t, v);
  }
  return MakeConst(t, 0);
}

Expr max_value(DataType t) {
  if (t.is_float()) return MakeConst(t, std::numeric_limits<double>::infinity());
  int64_t v;
  if (t.is_int())
    v = t.bits() >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (t.bits() - 1)) - 1;
  else if (t.is_bool())
    v = 1;
  else
    v = t.bits() >= 64 ? -1 : (int64_t{1} << t.bits()) - 1;
  return t.is_vector() ? Broadcast(IntImm(t.element_of(), v), t.lanes()) : IntImm(t, v);
}

namespace {
Expr FloatMath(const char* name, std::vector<Expr> args) {
  for (Expr& a : args) {
    TESSERA_USER_CHECK(a.defined()) << name << " of an undefined expression";
    if (!a.dtype().is_float()) a = cast(DataType::Float(32, a.dtype().lanes()), a);
  }
  for (size_t i = 1; i < args.size(); ++i) PromoteTypes(name, &args[0], &args[i]);
  for (size_t i = 1; i < args.size(); ++i) PromoteTypes(name, &args[0], &args[i]);
  DataType t = args[0].dtype();
  return Call(t, name, std::move(args));
}
}  // namespace

Expr exp(Expr x) { return FloatMath("exp", {x}); }
Expr log(Expr x) { return FloatMath("log", {x}); }
Expr sqrt(Expr x) { return FloatMath("sqrt", {x}); }
Expr tanh(Expr x) { return FloatMath("tanh", {x}); }
Expr sigmoid(Expr x) { return FloatMath("sigmoid", {x}); }
Expr floor(Expr x) { return FloatMath("floor", {x}); }
Expr ceil(Expr x) { return FloatMath("ceil", {x}); }
Expr round(Expr x) { return FloatMath("round", {x}); }
Expr erf(Expr x) { return FloatMath("erf", {x}); }
Expr pow(Expr x, Expr y) { return FloatMath("pow", {x, y}); }
Expr fma(Expr a, Expr b, Expr c) { return FloatMath("fma", {a, b, c}); }
Expr dot4_u8s8(Expr a, Expr b) {
  TESSERA_USER_CHECK(a.defined() && b.defined() &&
                     a.dtype() == DataType::Int(32, a.dtype().lanes()) && b.dtype() == a.dtype())
      << "dot4_u8s8 takes two int32 words of four bytes each";
  return Call(a.dtype(), builtin::kDot4U8S8, {a, b});
}
Expr abs(Expr x) {
  TESSERA_USER_CHECK(x.defined()) << "abs of an undefined expression";
  if (x.dtype().is_float()) return FloatMath("fabs", {x});
  return select(x < const_like(x, 0), -x, x);
}

}  // namespace ir
}  // namespace tessera
