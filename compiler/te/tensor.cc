#include "compiler/te/tensor.h"

#include <sstream>

#include "compiler/ir/functor.h"
#include "compiler/support/error.h"

namespace tessera {
namespace te {

namespace {

class CollectInputs : public ir::ExprVisitor {
 public:
  std::vector<Tensor> tensors;
  void VisitExpr_(const ir::ProducerLoadNode* op) override {
    const auto* t = op->producer.as<TensorNode>();
    TESSERA_INTERNAL_CHECK(t) << "ProducerLoad of a non-tensor";
    Tensor tensor(t);
    bool seen = false;
    for (const Tensor& x : tensors) seen = seen || x.same_tensor(tensor);
    if (!seen) tensors.push_back(tensor);
    ir::ExprVisitor::VisitExpr_(op);
  }
};

class FindNestedReduce : public ir::ExprVisitor {
 public:
  bool found = false;
  void VisitExpr_(const ir::ReduceNode*) override { found = true; }
};

}  // namespace

Tensor Operation::output() const { return Tensor(new TensorNode(*this)); }

std::vector<Expr> Operation::output_shape() const {
  if (const auto* p = as<PlaceholderOpNode>()) return p->shape;
  const auto* c = as<ComputeOpNode>();
  TESSERA_INTERNAL_CHECK(c) << "unknown operation kind";
  std::vector<Expr> shape;
  for (const IterVar& iv : c->axis) shape.push_back(iv->dom.extent);
  return shape;
}

DataType Operation::output_dtype() const {
  if (const auto* p = as<PlaceholderOpNode>()) return p->dtype;
  return as<ComputeOpNode>()->body.dtype();
}

std::vector<Tensor> Operation::InputTensors() const {
  CollectInputs c;
  if (const auto* op = as<ComputeOpNode>()) c.VisitExpr(op->body);
  return c.tensors;
}

IterVar Tensor::axis(size_t i) const {
  const auto* c = op().as<ComputeOpNode>();
  TESSERA_USER_CHECK(c) << "tensor '" << name() << "' is a placeholder and has no axes to schedule";
  TESSERA_USER_CHECK(i < c->axis.size()) << "axis " << i << " is out of range for tensor '"
                                         << name() << "' with " << c->axis.size() << " dimensions";
  return c->axis[i];
}

IterVar Tensor::reduce_axis(size_t i) const {
  const auto* c = op().as<ComputeOpNode>();
  TESSERA_USER_CHECK(c) << "tensor '" << name() << "' is a placeholder and has no reduction axes";
  TESSERA_USER_CHECK(i < c->reduce_axis.size())
      << "reduction axis " << i << " is out of range for tensor '" << name() << "' with "
      << c->reduce_axis.size() << " reduction axes";
  return c->reduce_axis[i];
}

Expr Tensor::operator()(const std::vector<Expr>& indices) const {
  TESSERA_USER_CHECK(defined()) << "reading an undefined tensor";
  TESSERA_USER_CHECK(indices.size() == ndim())
      << "tensor '" << name() << "' has " << ndim() << " dimensions but is indexed with "
      << indices.size();
  std::vector<Expr> idx;
  for (size_t i = 0; i < indices.size(); ++i) {
    TESSERA_USER_CHECK(indices[i].defined() && indices[i].dtype().is_integer() &&
                       indices[i].dtype().is_scalar())
        << "index " << i << " of tensor '" << name() << "' must be a scalar integer";
    idx.push_back(ir::cast(DataType::Int(32), indices[i]));
  }
  return ir::ProducerLoad(dtype(), *this, idx);
}

Tensor placeholder(const std::vector<Expr>& shape, DataType dtype, const std::string& name) {
  for (size_t i = 0; i < shape.size(); ++i) {
    TESSERA_USER_CHECK(shape[i].defined() && shape[i].dtype().is_integer())
        << "placeholder '" << name << "': dimension " << i << " must be an integer";
    if (const int64_t* v = ir::AsConstInt(shape[i])) {
      TESSERA_USER_CHECK(*v > 0) << "placeholder '" << name << "': dimension " << i << " is " << *v
                                 << " (must be positive)";
    }
  }
  TESSERA_USER_CHECK(!dtype.is_void() && dtype.is_scalar())
      << "placeholder '" << name << "': element type " << dtype << " is not a scalar type";
  return Operation(new PlaceholderOpNode(name, shape, dtype)).output();
}

Tensor compute(const std::vector<Expr>& shape,
               const std::function<Expr(const std::vector<Var>&)>& fcompute,
               const std::string& name, const std::string& tag) {
  std::vector<IterVar> axis;
  std::vector<Var> vars;
  static const char* kNames[] = {"i", "j", "k", "l", "m", "n"};
  for (size_t i = 0; i < shape.size(); ++i) {
    TESSERA_USER_CHECK(shape[i].defined() && shape[i].dtype().is_integer())
        << "compute '" << name << "': dimension " << i << " must be an integer";
    if (const int64_t* v = ir::AsConstInt(shape[i])) {
      TESSERA_USER_CHECK(*v > 0) << "compute '" << name << "': dimension " << i << " is " << *v
                                 << " (must be positive)";
    }
    std::string vname = name + "." + (i < 6 ? kNames[i] : "ax" + std::to_string(i));
    Var v(vname);
    vars.push_back(v);
    axis.push_back(IterVar(Range::FromMinExtent(0, ir::cast(DataType::Int(32), shape[i])), v,
                           ir::IterKind::kDataPar));
  }
  Expr body = fcompute(vars);
  TESSERA_USER_CHECK(body.defined()) << "compute '" << name << "': the body is undefined";
  TESSERA_USER_CHECK(body.dtype().is_scalar() && !body.dtype().is_handle())
      << "compute '" << name << "': the body has type " << body.dtype() << " (scalars only)";
  std::vector<IterVar> reduce_axis;
  if (const auto* r = body.as<ir::ReduceNode>()) {
    reduce_axis = r->axis;
    FindNestedReduce nested;
    nested.VisitExpr(r->source);
    nested.VisitExpr(r->condition);
    TESSERA_USER_CHECK(!nested.found)
        << "compute '" << name << "': nested reductions are not supported";
  } else {
    FindNestedReduce nested;
    nested.VisitExpr(body);
    TESSERA_USER_CHECK(!nested.found)
        << "compute '" << name
        << "': a reduction must be the whole body (e.g. sum(...)), not part of it";
  }
  return Operation(new ComputeOpNode(name, tag, axis, reduce_axis, body)).output();
}

Tensor compute(const std::vector<Expr>& shape, const std::function<Expr(Var)>& f,
               const std::string& name, const std::string& tag) {
  TESSERA_USER_CHECK(shape.size() == 1)
      << "compute '" << name << "': a 1-argument function for a " << shape.size() << "-D shape";
  return compute(
      shape, [&](const std::vector<Var>& v) { return f(v[0]); }, name, tag);
}
Tensor compute(const std::vector<Expr>& shape, const std::function<Expr(Var, Var)>& f,
               const std::string& name, const std::string& tag) {
  TESSERA_USER_CHECK(shape.size() == 2)
      << "compute '" << name << "': a 2-argument function for a " << shape.size() << "-D shape";
  return compute(
      shape, [&](const std::vector<Var>& v) { return f(v[0], v[1]); }, name, tag);
}
Tensor compute(const std::vector<Expr>& shape, const std::function<Expr(Var, Var, Var)>& f,
               const std::string& name, const std::string& tag) {
  TESSERA_USER_CHECK(shape.size() == 3)
      << "compute '" << name << "': a 3-argument function for a " << shape.size() << "-D shape";
  return compute(
      shape, [&](const std::vector<Var>& v) { return f(v[0], v[1], v[2]); }, name, tag);
}
Tensor compute(const std::vector<Expr>& shape, const std::function<Expr(Var, Var, Var, Var)>& f,
               const std::string& name, const std::string& tag) {
  TESSERA_USER_CHECK(shape.size() == 4)
      << "compute '" << name << "': a 4-argument function for a " << shape.size() << "-D shape";
  return compute(
      shape, [&](const std::vector<Var>& v) { return f(v[0], v[1], v[2], v[3]); }, name, tag);
}
Tensor compute(const std::vector<Expr>& shape,
               const std::function<Expr(Var, Var, Var, Var, Var)>& f, const std::string& name,
               const std::string& tag) {
  TESSERA_USER_CHECK(shape.size() == 5)
      << "compute '" << name << "': a 5-argument function for a " << shape.size() << "-D shape";
  return compute(
      shape, [&](const std::vector<Var>& v) { return f(v[0], v[1], v[2], v[3], v[4]); }, name, tag);
}

IterVar reduce_axis(Range dom, const std::string& name) {
  TESSERA_USER_CHECK(dom.min.defined() && dom.extent.defined() && dom.min.dtype().is_integer() &&
                     dom.extent.dtype().is_integer())
      << "reduce_axis '" << name << "': the range must be integers";
  if (const int64_t* e = ir::AsConstInt(dom.extent)) {
    TESSERA_USER_CHECK(*e > 0) << "reduce_axis '" << name << "': extent " << *e
                               << " must be positive";
  }
  return IterVar(Range::FromMinExtent(ir::cast(DataType::Int(32), dom.min),
                                      ir::cast(DataType::Int(32), dom.extent)),
                 Var(name), ir::IterKind::kReduce);
}

IterVar reduce_axis(Expr extent, const std::string& name) {
  return reduce_axis(Range::FromMinExtent(0, extent), name);
}

namespace {
Expr MakeReduce(const char* what, ir::ReduceKind kind, Expr source,
                const std::vector<IterVar>& axis, Expr cond) {
  TESSERA_USER_CHECK(source.defined()) << what << ": the source is undefined";
  TESSERA_USER_CHECK(!axis.empty()) << what << ": no reduction axes given";
  for (const IterVar& iv : axis) {
    TESSERA_USER_CHECK(iv.defined() && iv->iter_kind == ir::IterKind::kReduce)
        << what << ": axis '" << (iv.defined() ? iv->var.name() : "?")
        << "' is not a reduction axis (make it with reduce_axis)";
  }
  if (cond.defined()) {
    TESSERA_USER_CHECK(cond.dtype() == DataType::Bool())
        << what << ": the condition must be a bool";
  }
  return ir::Reduce(kind, source, axis, cond);
}
}  // namespace

Expr sum(Expr source, const std::vector<IterVar>& axis, Expr condition) {
  return MakeReduce("sum", ir::ReduceKind::kSum, source, axis, condition);
}
Expr max(Expr source, const std::vector<IterVar>& axis, Expr condition) {
  return MakeReduce("max", ir::ReduceKind::kMax, source, axis, condition);
}
Expr min(Expr source, const std::vector<IterVar>& axis, Expr condition) {
  return MakeReduce("min", ir::ReduceKind::kMin, source, axis, condition);
}
Expr prod(Expr source, const std::vector<IterVar>& axis, Expr condition) {
  return MakeReduce("prod", ir::ReduceKind::kProd, source, axis, condition);
}

Expr ReduceIdentity(ir::ReduceKind kind, DataType t) {
  switch (kind) {
    case ir::ReduceKind::kSum:
      return ir::MakeConst(t, 0);
    case ir::ReduceKind::kProd:
      return ir::MakeConst(t, 1);
    case ir::ReduceKind::kMin:
      return ir::max_value(t);
    case ir::ReduceKind::kMax:
      return ir::min_value(t);
  }
  return Expr();
}

Expr ReduceCombine(ir::ReduceKind kind, Expr acc, Expr value) {
  switch (kind) {
    case ir::ReduceKind::kSum:
      return ir::Add(acc, value);
    case ir::ReduceKind::kProd:
      return ir::Mul(acc, value);
    case ir::ReduceKind::kMin:
      return ir::Min(acc, value);
    case ir::ReduceKind::kMax:
      return ir::Max(acc, value);
  }
  return Expr();
}

}  // namespace te
}  // namespace tessera
