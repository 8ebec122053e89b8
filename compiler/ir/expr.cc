#include "compiler/ir/expr.h"

#include "compiler/support/error.h"

namespace tessera {
namespace ir {

Expr::Expr(int32_t value) : Expr(new IntImmNode(DataType::Int(32), value)) {}
Expr::Expr(float value) : Expr(new FloatImmNode(DataType::Float(32), value)) {}

DataType Expr::dtype() const {
  TESSERA_INTERNAL_CHECK(defined()) << "dtype of a null expression";
  return get()->dtype;
}

Var::Var(std::string name, DataType t) : Expr(new VarNode(std::move(name), t)) {}

IterVar::IterVar(Range dom, Var var, IterKind kind, std::string thread_tag)
    : ObjectRef(new IterVarNode(std::move(var), std::move(dom), kind, std::move(thread_tag))) {}

namespace {
void CheckSameType(const char* op, const Expr& a, const Expr& b) {
  TESSERA_INTERNAL_CHECK(a.defined() && b.defined()) << op << " of a null expression";
  TESSERA_INTERNAL_CHECK(a.dtype() == b.dtype())
      << op << " of mismatched types " << a.dtype() << " and " << b.dtype();
}
DataType BoolLike(const Expr& a) { return DataType::Bool(a.dtype().lanes()); }
}  // namespace

#define TESSERA_IR_ARITH_FACTORY(Name)                          \
  Expr Name(Expr a, Expr b) {                                   \
    CheckSameType(#Name, a, b);                                 \
    DataType t = a.dtype();                                     \
    return Expr(new Name##Node(t, std::move(a), std::move(b))); \
  }
#define TESSERA_IR_CMP_FACTORY(Name)                            \
  Expr Name(Expr a, Expr b) {                                   \
    CheckSameType(#Name, a, b);                                 \
    DataType t = BoolLike(a);                                   \
    return Expr(new Name##Node(t, std::move(a), std::move(b))); \
  }
TESSERA_IR_ARITH_FACTORY(Add)
TESSERA_IR_ARITH_FACTORY(Sub)
TESSERA_IR_ARITH_FACTORY(Mul)
TESSERA_IR_ARITH_FACTORY(Div)
TESSERA_IR_ARITH_FACTORY(Mod)
TESSERA_IR_ARITH_FACTORY(FloorDiv)
TESSERA_IR_ARITH_FACTORY(FloorMod)
TESSERA_IR_ARITH_FACTORY(Min)
TESSERA_IR_ARITH_FACTORY(Max)
TESSERA_IR_CMP_FACTORY(EQ)
TESSERA_IR_CMP_FACTORY(NE)
TESSERA_IR_CMP_FACTORY(LT)
TESSERA_IR_CMP_FACTORY(LE)
TESSERA_IR_CMP_FACTORY(GT)
TESSERA_IR_CMP_FACTORY(GE)
TESSERA_IR_ARITH_FACTORY(And)
TESSERA_IR_ARITH_FACTORY(Or)
#undef TESSERA_IR_ARITH_FACTORY
#undef TESSERA_IR_CMP_FACTORY

Expr IntImm(DataType t, int64_t value) {
  TESSERA_INTERNAL_CHECK(t.is_int() || t.code() == DataType::kUInt) << "IntImm of type " << t;
  TESSERA_INTERNAL_CHECK(t.is_scalar()) << "IntImm of vector type " << t;
  return Expr(new IntImmNode(t, value));
}

Expr FloatImm(DataType t, double value) {
  TESSERA_INTERNAL_CHECK(t.is_float() && t.is_scalar()) << "FloatImm of type " << t;
  return Expr(new FloatImmNode(t, value));
}

Expr MakeConst(DataType t, double value) {
  if (t.is_vector()) return Broadcast(MakeConst(t.element_of(), value), t.lanes());
  if (t.is_float()) return FloatImm(t, value);
  return IntImm(t, static_cast<int64_t>(value));
}

Expr StringImm(std::string value) { return Expr(new StringImmNode(std::move(value))); }

Expr Not(Expr a) {
  TESSERA_INTERNAL_CHECK(a.dtype().is_bool()) << "Not of " << a.dtype();
  DataType t = a.dtype();
  return Expr(new NotNode(t, std::move(a)));
}

Expr Select(Expr condition, Expr true_value, Expr false_value) {
  CheckSameType("Select", true_value, false_value);
  TESSERA_INTERNAL_CHECK(condition.dtype().is_bool())
      << "Select condition of " << condition.dtype();
  DataType t = true_value.dtype();
  return Expr(
      new SelectNode(t, std::move(condition), std::move(true_value), std::move(false_value)));
}

Expr Cast(DataType t, Expr value) {
  TESSERA_INTERNAL_CHECK(value.dtype().lanes() == t.lanes())
      << "Cast from " << value.dtype() << " to " << t;
  return Expr(new CastNode(t, std::move(value)));
}

Expr Ramp(Expr base, Expr stride, int lanes) {
  CheckSameType("Ramp", base, stride);
  TESSERA_INTERNAL_CHECK(base.dtype().is_scalar() && lanes > 1) << "Ramp of " << lanes << " lanes";
  DataType t = base.dtype().with_lanes(lanes);
  return Expr(new RampNode(t, std::move(base), std::move(stride), lanes));
}

Expr Broadcast(Expr value, int lanes) {
  TESSERA_INTERNAL_CHECK(value.dtype().is_scalar() && lanes > 1) << "Broadcast of " << lanes;
  DataType t = value.dtype().with_lanes(lanes);
  return Expr(new BroadcastNode(t, std::move(value), lanes));
}

Expr Load(DataType elem, Var buffer_var, Expr index) {
  TESSERA_INTERNAL_CHECK(buffer_var.dtype().is_handle())
      << "Load from non-handle " << buffer_var.name();
  TESSERA_INTERNAL_CHECK(index.dtype().is_int()) << "Load index of type " << index.dtype();
  DataType t = elem.element_of().with_lanes(index.dtype().lanes());
  return Expr(new LoadNode(t, std::move(buffer_var), std::move(index)));
}

Expr Call(DataType t, std::string name, std::vector<Expr> args) {
  return Expr(new CallNode(t, std::move(name), std::move(args)));
}

Expr Let(Var var, Expr value, Expr body) {
  CheckSameType("Let", var, value);
  DataType t = body.dtype();
  return Expr(new LetNode(t, std::move(var), std::move(value), std::move(body)));
}

Expr ProducerLoad(DataType t, ObjectRef producer, std::vector<Expr> indices) {
  return Expr(new ProducerLoadNode(t, std::move(producer), std::move(indices)));
}

Expr Reduce(ReduceKind combiner, Expr source, std::vector<IterVar> axis, Expr condition) {
  DataType t = source.dtype();
  if (!condition.defined()) condition = IntImm(DataType::Bool(), 1);
  return Expr(
      new ReduceNode(t, combiner, std::move(source), std::move(axis), std::move(condition)));
}

const int64_t* AsConstInt(const Expr& e) {
  if (const auto* imm = e.as<IntImmNode>()) return &imm->value;
  if (const auto* b = e.as<BroadcastNode>()) return AsConstInt(b->value);
  return nullptr;
}

bool IsConstInt(const Expr& e, int64_t value) {
  const int64_t* v = AsConstInt(e);
  return v && *v == value;
}

}  // namespace ir
}  // namespace tessera
