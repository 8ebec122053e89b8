#include "compiler/ir/functor.h"

#include "compiler/support/error.h"

namespace tessera {
namespace ir {

namespace {
template <typename T>
bool SameAll(const std::vector<T>& a, const std::vector<T>& b) {
  for (size_t i = 0; i < a.size(); ++i)
    if (!a[i].same_as(b[i])) return false;
  return true;
}
}  // namespace

Expr RebuildBinary(const BinaryNode* op, Expr a, Expr b) {
  switch (op->kind()) {
#define TESSERA_BINARY_NODE(Name) \
  case k##Name:                   \
    return Name(a, b);
#include "compiler/ir/node_kinds.def"
    default:
      TESSERA_INTERNAL_ERROR() << "not a binary node: " << op->type_name();
  }
  return Expr();
}

// ---------------------------------------------------------------- ExprVisitor
void ExprVisitor::VisitExpr(const Expr& e) {
  if (!e.defined()) return;
  const Object* n = e.get();
  switch (n->kind()) {
#define TESSERA_EXPR_NODE(Name) \
  case k##Name:                 \
    return VisitExpr_(static_cast<const Name##Node*>(n));
#include "compiler/ir/node_kinds.def"
#define TESSERA_BINARY_NODE(Name) case k##Name:
#include "compiler/ir/node_kinds.def"
    return VisitExpr_(static_cast<const BinaryNode*>(n));
    default:
      TESSERA_INTERNAL_ERROR() << "not an expression: " << n->type_name();
  }
}
void ExprVisitor::VisitExpr_(const IntImmNode*) {}
void ExprVisitor::VisitExpr_(const FloatImmNode*) {}
void ExprVisitor::VisitExpr_(const StringImmNode*) {}
void ExprVisitor::VisitExpr_(const VarNode*) {}
void ExprVisitor::VisitExpr_(const BinaryNode* op) {
  VisitExpr(op->a);
  VisitExpr(op->b);
}
void ExprVisitor::VisitExpr_(const NotNode* op) { VisitExpr(op->a); }
void ExprVisitor::VisitExpr_(const SelectNode* op) {
  VisitExpr(op->condition);
  VisitExpr(op->true_value);
  VisitExpr(op->false_value);
}
void ExprVisitor::VisitExpr_(const CastNode* op) { VisitExpr(op->value); }
void ExprVisitor::VisitExpr_(const RampNode* op) {
  VisitExpr(op->base);
  VisitExpr(op->stride);
}
void ExprVisitor::VisitExpr_(const BroadcastNode* op) { VisitExpr(op->value); }
void ExprVisitor::VisitExpr_(const LoadNode* op) {
  VisitExpr(op->buffer_var);
  VisitExpr(op->index);
}
void ExprVisitor::VisitExpr_(const CallNode* op) {
  for (const Expr& a : op->args) VisitExpr(a);
}
void ExprVisitor::VisitExpr_(const LetNode* op) {
  VisitExpr(op->var);
  VisitExpr(op->value);
  VisitExpr(op->body);
}
void ExprVisitor::VisitExpr_(const ProducerLoadNode* op) {
  for (const Expr& i : op->indices) VisitExpr(i);
}
void ExprVisitor::VisitExpr_(const ReduceNode* op) {
  for (const IterVar& iv : op->axis) {
    VisitExpr(iv->dom.min);
    VisitExpr(iv->dom.extent);
  }
  VisitExpr(op->source);
  VisitExpr(op->condition);
}

// ---------------------------------------------------------------- StmtVisitor
void StmtVisitor::VisitStmt(const Stmt& s) {
  if (!s.defined()) return;
  const Object* n = s.get();
  switch (n->kind()) {
#define TESSERA_STMT_NODE(Name) \
  case k##Name:                 \
    return VisitStmt_(static_cast<const Name##Node*>(n));
#include "compiler/ir/node_kinds.def"
    default:
      TESSERA_INTERNAL_ERROR() << "not a statement: " << n->type_name();
  }
}
void StmtVisitor::VisitStmt_(const LetStmtNode* op) {
  VisitExpr(op->var);
  VisitExpr(op->value);
  VisitStmt(op->body);
}
void StmtVisitor::VisitStmt_(const AttrStmtNode* op) {
  VisitExpr(op->value);
  VisitStmt(op->body);
}
void StmtVisitor::VisitStmt_(const AssertStmtNode* op) {
  VisitExpr(op->condition);
  VisitStmt(op->body);
}
void StmtVisitor::VisitStmt_(const StoreNode* op) {
  VisitExpr(op->buffer_var);
  VisitExpr(op->value);
  VisitExpr(op->index);
}
void StmtVisitor::VisitStmt_(const AllocateNode* op) {
  VisitExpr(op->buffer_var);
  for (const Expr& e : op->extents) VisitExpr(e);
  VisitStmt(op->body);
}
void StmtVisitor::VisitStmt_(const ForNode* op) {
  VisitExpr(op->loop_var);
  VisitExpr(op->min);
  VisitExpr(op->extent);
  VisitStmt(op->body);
}
void StmtVisitor::VisitStmt_(const IfThenElseNode* op) {
  VisitExpr(op->condition);
  VisitStmt(op->then_case);
  VisitStmt(op->else_case);
}
void StmtVisitor::VisitStmt_(const SeqStmtNode* op) {
  for (const Stmt& s : op->seq) VisitStmt(s);
}
void StmtVisitor::VisitStmt_(const EvaluateNode* op) { VisitExpr(op->value); }
void StmtVisitor::VisitStmt_(const ProducerStoreNode* op) {
  VisitExpr(op->value);
  for (const Expr& i : op->indices) VisitExpr(i);
}
void StmtVisitor::VisitStmt_(const ProducerRealizeNode* op) {
  for (const Range& r : op->bounds) {
    VisitExpr(r.min);
    VisitExpr(r.extent);
  }
  VisitStmt(op->body);
}

// ---------------------------------------------------------------- ExprMutator
Expr ExprMutator::VisitExpr(const Expr& e) {
  if (!e.defined()) return e;
  const Object* n = e.get();
  switch (n->kind()) {
#define TESSERA_EXPR_NODE(Name) \
  case k##Name:                 \
    return VisitExpr_(static_cast<const Name##Node*>(n));
#include "compiler/ir/node_kinds.def"
#define TESSERA_BINARY_NODE(Name) case k##Name:
#include "compiler/ir/node_kinds.def"
    return VisitExpr_(static_cast<const BinaryNode*>(n));
    default:
      TESSERA_INTERNAL_ERROR() << "not an expression: " << n->type_name();
  }
  return Expr();
}
Expr ExprMutator::VisitExpr_(const IntImmNode* op) { return Expr(op); }
Expr ExprMutator::VisitExpr_(const FloatImmNode* op) { return Expr(op); }
Expr ExprMutator::VisitExpr_(const StringImmNode* op) { return Expr(op); }
Expr ExprMutator::VisitExpr_(const VarNode* op) { return Expr(op); }
Expr ExprMutator::VisitExpr_(const BinaryNode* op) {
  Expr a = VisitExpr(op->a), b = VisitExpr(op->b);
  if (a.same_as(op->a) && b.same_as(op->b)) return Expr(op);
  return RebuildBinary(op, a, b);
}
Expr ExprMutator::VisitExpr_(const NotNode* op) {
  Expr a = VisitExpr(op->a);
  if (a.same_as(op->a)) return Expr(op);
  return Not(a);
}
Expr ExprMutator::VisitExpr_(const SelectNode* op) {
  Expr c = VisitExpr(op->condition), t = VisitExpr(op->true_value), f = VisitExpr(op->false_value);
  if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value))
    return Expr(op);
  return Select(c, t, f);
}
Expr ExprMutator::VisitExpr_(const CastNode* op) {
  Expr v = VisitExpr(op->value);
  if (v.same_as(op->value)) return Expr(op);
  return Cast(op->dtype, v);
}
Expr ExprMutator::VisitExpr_(const RampNode* op) {
  Expr b = VisitExpr(op->base), s = VisitExpr(op->stride);
  if (b.same_as(op->base) && s.same_as(op->stride)) return Expr(op);
  return Ramp(b, s, op->lanes);
}
Expr ExprMutator::VisitExpr_(const BroadcastNode* op) {
  Expr v = VisitExpr(op->value);
  if (v.same_as(op->value)) return Expr(op);
  return Broadcast(v, op->lanes);
}
Expr ExprMutator::VisitExpr_(const LoadNode* op) {
  Expr buf = VisitExpr(op->buffer_var), idx = VisitExpr(op->index);
  if (buf.same_as(op->buffer_var) && idx.same_as(op->index)) return Expr(op);
  const VarNode* v = buf.as<VarNode>();
  TESSERA_INTERNAL_CHECK(v) << "Load buffer rewritten to a non-variable";
  return Load(op->dtype, Var(v), idx);
}
Expr ExprMutator::VisitExpr_(const CallNode* op) {
  std::vector<Expr> args;
  for (const Expr& a : op->args) args.push_back(VisitExpr(a));
  if (SameAll(args, op->args)) return Expr(op);
  return Call(op->dtype, op->name, args);
}
Expr ExprMutator::VisitExpr_(const LetNode* op) {
  Expr v = VisitExpr(op->value), b = VisitExpr(op->body);
  if (v.same_as(op->value) && b.same_as(op->body)) return Expr(op);
  return Let(op->var, v, b);
}
Expr ExprMutator::VisitExpr_(const ProducerLoadNode* op) {
  std::vector<Expr> idx;
  for (const Expr& i : op->indices) idx.push_back(VisitExpr(i));
  if (SameAll(idx, op->indices)) return Expr(op);
  return ProducerLoad(op->dtype, op->producer, idx);
}
Expr ExprMutator::VisitExpr_(const ReduceNode* op) {
  Expr s = VisitExpr(op->source), c = VisitExpr(op->condition);
  if (s.same_as(op->source) && c.same_as(op->condition)) return Expr(op);
  return Reduce(op->combiner, s, op->axis, c);
}

// ---------------------------------------------------------------- StmtMutator
Stmt StmtMutator::VisitStmt(const Stmt& s) {
  if (!s.defined()) return s;
  const Object* n = s.get();
  switch (n->kind()) {
#define TESSERA_STMT_NODE(Name) \
  case k##Name:                 \
    return VisitStmt_(static_cast<const Name##Node*>(n));
#include "compiler/ir/node_kinds.def"
    default:
      TESSERA_INTERNAL_ERROR() << "not a statement: " << n->type_name();
  }
  return Stmt();
}
Stmt StmtMutator::VisitStmt_(const LetStmtNode* op) {
  Expr v = VisitExpr(op->value);
  Stmt b = VisitStmt(op->body);
  if (v.same_as(op->value) && b.same_as(op->body)) return Stmt(op);
  return LetStmt(op->var, v, b);
}
Stmt StmtMutator::VisitStmt_(const AttrStmtNode* op) {
  Expr v = VisitExpr(op->value);
  Stmt b = VisitStmt(op->body);
  if (v.same_as(op->value) && b.same_as(op->body)) return Stmt(op);
  return AttrStmt(op->node, op->key, v, b);
}
Stmt StmtMutator::VisitStmt_(const AssertStmtNode* op) {
  Expr c = VisitExpr(op->condition);
  Stmt b = VisitStmt(op->body);
  if (c.same_as(op->condition) && b.same_as(op->body)) return Stmt(op);
  return AssertStmt(c, op->message, b);
}
Stmt StmtMutator::VisitStmt_(const StoreNode* op) {
  Expr v = VisitExpr(op->value), i = VisitExpr(op->index);
  if (v.same_as(op->value) && i.same_as(op->index)) return Stmt(op);
  return Store(op->buffer_var, v, i);
}
Stmt StmtMutator::VisitStmt_(const AllocateNode* op) {
  std::vector<Expr> ext;
  for (const Expr& e : op->extents) ext.push_back(VisitExpr(e));
  Stmt b = VisitStmt(op->body);
  if (SameAll(ext, op->extents) && b.same_as(op->body)) return Stmt(op);
  return Allocate(op->buffer_var, op->dtype, ext, op->scope, b);
}
Stmt StmtMutator::VisitStmt_(const ForNode* op) {
  Expr mn = VisitExpr(op->min), ext = VisitExpr(op->extent);
  Stmt b = VisitStmt(op->body);
  if (mn.same_as(op->min) && ext.same_as(op->extent) && b.same_as(op->body)) return Stmt(op);
  return For(op->loop_var, mn, ext, op->for_kind, b, op->thread_tag);
}
Stmt StmtMutator::VisitStmt_(const IfThenElseNode* op) {
  Expr c = VisitExpr(op->condition);
  Stmt t = VisitStmt(op->then_case), e = VisitStmt(op->else_case);
  if (c.same_as(op->condition) && t.same_as(op->then_case) && e.same_as(op->else_case))
    return Stmt(op);
  return IfThenElse(c, t, e);
}
Stmt StmtMutator::VisitStmt_(const SeqStmtNode* op) {
  std::vector<Stmt> seq;
  for (const Stmt& s : op->seq) seq.push_back(VisitStmt(s));
  if (SameAll(seq, op->seq)) return Stmt(op);
  return SeqStmt(seq);
}
Stmt StmtMutator::VisitStmt_(const EvaluateNode* op) {
  Expr v = VisitExpr(op->value);
  if (v.same_as(op->value)) return Stmt(op);
  return Evaluate(v);
}
Stmt StmtMutator::VisitStmt_(const ProducerStoreNode* op) {
  Expr v = VisitExpr(op->value);
  std::vector<Expr> idx;
  for (const Expr& i : op->indices) idx.push_back(VisitExpr(i));
  if (v.same_as(op->value) && SameAll(idx, op->indices)) return Stmt(op);
  return ProducerStore(op->producer, v, idx);
}
Stmt StmtMutator::VisitStmt_(const ProducerRealizeNode* op) {
  std::vector<Range> bounds;
  bool same = true;
  for (const Range& r : op->bounds) {
    Range nr{VisitExpr(r.min), VisitExpr(r.extent)};
    same = same && nr.min.same_as(r.min) && nr.extent.same_as(r.extent);
    bounds.push_back(nr);
  }
  Stmt b = VisitStmt(op->body);
  if (same && b.same_as(op->body)) return Stmt(op);
  return ProducerRealize(op->producer, bounds, op->scope, b);
}

}  // namespace ir
}  // namespace tessera
