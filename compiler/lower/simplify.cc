#include "compiler/lower/simplify.h"

#include "compiler/arith/analyzer.h"
#include "compiler/ir/builtin.h"
#include "compiler/ir/functor.h"
#include "compiler/ir/substitute.h"

namespace tessera {
namespace lower {

namespace {

using ir::Expr;
using ir::Stmt;

class StmtSimplifier : public ir::StmtExprMutator {
 public:
  Expr VisitExpr(const Expr& e) override { return e.defined() ? an_.Simplify(e) : e; }

  Stmt VisitStmt_(const ir::ForNode* op) override {
    Expr mn = VisitExpr(op->min), ext = VisitExpr(op->extent);
    const int64_t* cext = ir::AsConstInt(ext);
    if (cext && *cext <= 0) return ir::NoOp();
    if (cext && *cext == 1 && op->for_kind != ir::ForKind::kThreadBinding) {
      return VisitStmt(ir::Substitute(op->body, {{op->loop_var.get(), mn}}));
    }
    arith::VarBoundMap saved = an_.bounds();
    an_.Bind(op->loop_var, ir::Range::FromMinExtent(mn, ext));
    Stmt body = VisitStmt(op->body);
    an_.set_bounds(saved);
    if (ir::IsNoOp(body)) return ir::NoOp();
    if (mn.same_as(op->min) && ext.same_as(op->extent) && body.same_as(op->body)) return Stmt(op);
    return ir::For(op->loop_var, mn, ext, op->for_kind, body, op->thread_tag);
  }

  Stmt VisitStmt_(const ir::IfThenElseNode* op) override {
    Expr cond = VisitExpr(op->condition);
    if (ir::IsConstInt(cond, 1)) return VisitStmt(op->then_case);
    if (ir::IsConstInt(cond, 0))
      return op->else_case.defined() ? VisitStmt(op->else_case) : ir::NoOp();
    Stmt t = VisitStmt(op->then_case);
    Stmt e = op->else_case.defined() ? VisitStmt(op->else_case) : Stmt();
    if (e.defined() && ir::IsNoOp(e)) e = Stmt();
    if (ir::IsNoOp(t) && !e.defined()) return ir::NoOp();
    return ir::IfThenElse(cond, t, e);
  }

  Stmt VisitStmt_(const ir::LetStmtNode* op) override {
    Expr value = VisitExpr(op->value);
    arith::VarBoundMap saved = an_.bounds();
    if (value.dtype().is_integer() && value.dtype().is_scalar())
      an_.Bind(op->var, an_.Bound(value));
    Stmt body = VisitStmt(op->body);
    an_.set_bounds(saved);
    if (value.same_as(op->value) && body.same_as(op->body)) return Stmt(op);
    return ir::LetStmt(op->var, value, body);
  }

  Stmt VisitStmt_(const ir::SeqStmtNode* op) override {
    std::vector<Stmt> seq;
    for (const Stmt& s : op->seq) {
      Stmt r = VisitStmt(s);
      if (!ir::IsNoOp(r)) seq.push_back(r);
    }
    return ir::SeqStmt(seq);
  }

  Stmt VisitStmt_(const ir::AllocateNode* op) override {
    Stmt body = VisitStmt(op->body);
    if (ir::IsNoOp(body)) return body;
    if (body.same_as(op->body)) return Stmt(op);
    return ir::Allocate(op->buffer_var, op->dtype, op->extents, op->scope, body);
  }

 private:
  arith::Analyzer an_;
};

}  // namespace

Stmt Simplify(const Stmt& body) { return StmtSimplifier().VisitStmt(body); }

}  // namespace lower
}  // namespace tessera
