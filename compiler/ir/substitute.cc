#include "compiler/ir/substitute.h"

#include "compiler/ir/functor.h"

namespace tessera {
namespace ir {

namespace {

class Substituter : public StmtExprMutator {
 public:
  explicit Substituter(const VarMap& vars) : vars_(vars) {}
  Expr VisitExpr_(const VarNode* op) override {
    auto it = vars_.find(op);
    return it != vars_.end() ? it->second : Expr(op);
  }
  Expr VisitExpr_(const LoadNode* op) override {
    Expr idx = VisitExpr(op->index);
    Var buf = op->buffer_var;
    auto it = vars_.find(buf.get());
    if (it != vars_.end() && it->second.as<VarNode>()) buf = Var(it->second.as<VarNode>());
    if (idx.same_as(op->index) && buf.same_as(op->buffer_var)) return Expr(op);
    return Load(op->dtype, buf, idx);
  }
  Stmt VisitStmt_(const StoreNode* op) override {
    Expr v = VisitExpr(op->value), idx = VisitExpr(op->index);
    Var buf = op->buffer_var;
    auto it = vars_.find(buf.get());
    if (it != vars_.end() && it->second.as<VarNode>()) buf = Var(it->second.as<VarNode>());
    if (v.same_as(op->value) && idx.same_as(op->index) && buf.same_as(op->buffer_var))
      return Stmt(op);
    return Store(buf, v, idx);
  }

 private:
  const VarMap& vars_;
};

class VarUseFinder : public StmtExprVisitor {
 public:
  explicit VarUseFinder(const std::unordered_set<const Object*>& vars) : vars_(vars) {}
  bool found = false;
  void VisitExpr_(const VarNode* op) override { found = found || vars_.count(op); }

 private:
  const std::unordered_set<const Object*>& vars_;
};

}  // namespace

Expr Substitute(const Expr& e, const VarMap& vars) {
  if (vars.empty()) return e;
  return Substituter(vars).VisitExpr(e);
}

Stmt Substitute(const Stmt& s, const VarMap& vars) {
  if (vars.empty()) return s;
  return Substituter(vars).VisitStmt(s);
}

bool UsesVar(const Expr& e, const std::unordered_set<const Object*>& vars) {
  VarUseFinder f(vars);
  f.VisitExpr(e);
  return f.found;
}

bool UsesVar(const Stmt& s, const std::unordered_set<const Object*>& vars) {
  VarUseFinder f(vars);
  f.VisitStmt(s);
  return f.found;
}

}  // namespace ir
}  // namespace tessera
