#include "compiler/ir/free_vars.h"

#include <unordered_set>

#include "compiler/ir/functor.h"

namespace tessera {
namespace ir {

namespace {

class FreeVarCollector : public StmtExprVisitor {
 public:
  std::vector<Var> vars;
  void VisitExpr_(const VarNode* op) override { Use(op); }
  void VisitExpr_(const LoadNode* op) override {
    Use(op->buffer_var.get());
    VisitExpr(op->index);
  }
  void VisitExpr_(const LetNode* op) override {
    defined_.insert(op->var.get());
    VisitExpr(op->value);
    VisitExpr(op->body);
  }
  void VisitStmt_(const StoreNode* op) override {
    Use(op->buffer_var.get());
    VisitExpr(op->value);
    VisitExpr(op->index);
  }
  void VisitStmt_(const LetStmtNode* op) override {
    VisitExpr(op->value);
    defined_.insert(op->var.get());
    VisitStmt(op->body);
  }
  void VisitStmt_(const ForNode* op) override {
    VisitExpr(op->min);
    VisitExpr(op->extent);
    defined_.insert(op->loop_var.get());
    VisitStmt(op->body);
  }
  void VisitStmt_(const AllocateNode* op) override {
    for (const Expr& e : op->extents) VisitExpr(e);
    defined_.insert(op->buffer_var.get());
    VisitStmt(op->body);
  }

 private:
  void Use(const VarNode* v) {
    if (defined_.count(v) || seen_.count(v)) return;
    seen_.insert(v);
    vars.push_back(Var(v));
  }
  std::unordered_set<const Object*> defined_, seen_;
};

}  // namespace

std::vector<Var> FreeVars(const Stmt& s) {
  FreeVarCollector c;
  c.VisitStmt(s);
  return c.vars;
}

}  // namespace ir
}  // namespace tessera
