#include "compiler/lower/loop_partition.h"

#include <unordered_set>

#include "compiler/arith/int_set.h"
#include "compiler/ir/builtin.h"
#include "compiler/ir/functor.h"
#include "compiler/ir/op.h"
#include "compiler/ir/structural_equal.h"
#include "compiler/ir/substitute.h"

namespace tessera {
namespace lower {

namespace {

using ir::Expr;
using ir::Stmt;

void SplitConjunction(const Expr& e, std::vector<Expr>* out) {
  if (const auto* a = e.as<ir::AndNode>()) {
    SplitConjunction(a->a, out);
    SplitConjunction(a->b, out);
  } else {
    out->push_back(e);
  }
}

// The condition inside a `likely` guard, or null.
Expr GuardCondition(const ir::IfThenElseNode* op) {
  const auto* call = op->condition.as<ir::CallNode>();
  if (!call || call->name != ir::builtin::kLikely || op->else_case.defined()) return Expr();
  return call->args[0];
}

class DefinedVars : public ir::StmtVisitor {
 public:
  std::unordered_set<const ir::Object*> vars;
  void VisitStmt_(const ir::ForNode* op) override {
    vars.insert(op->loop_var.get());
    ir::StmtVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const ir::LetStmtNode* op) override {
    vars.insert(op->var.get());
    ir::StmtVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const ir::AllocateNode* op) override {
    vars.insert(op->buffer_var.get());
    ir::StmtVisitor::VisitStmt_(op);
  }
};

class HasLoop : public ir::StmtVisitor {
 public:
  bool found = false;
  void VisitStmt_(const ir::ForNode*) override { found = true; }
};

// Guard conjuncts that depend on `var` and otherwise only on variables defined outside the loop.
class CollectCandidates : public ir::StmtVisitor {
 public:
  CollectCandidates(const ir::Var& var, const std::unordered_set<const ir::Object*>& inner)
      : var_(var), inner_(inner) {}
  std::vector<Expr> candidates;
  void VisitStmt_(const ir::IfThenElseNode* op) override {
    Expr cond = GuardCondition(op);
    if (cond.defined()) {
      std::vector<Expr> parts;
      SplitConjunction(cond, &parts);
      for (const Expr& c : parts) {
        if (!ir::UsesVar(c, {var_.get()}) || ir::UsesVar(c, inner_)) continue;
        bool seen = false;
        for (const Expr& x : candidates) seen = seen || ir::StructuralEqual(x, c);
        if (!seen) candidates.push_back(c);
      }
    }
    ir::StmtVisitor::VisitStmt_(op);
  }

 private:
  ir::Var var_;
  const std::unordered_set<const ir::Object*>& inner_;
};

// Replaces the proven conjuncts of guards by true.
class DropGuards : public ir::StmtMutator {
 public:
  explicit DropGuards(const std::vector<Expr>& proven) : proven_(proven) {}
  Stmt VisitStmt_(const ir::IfThenElseNode* op) override {
    Stmt then_case = VisitStmt(op->then_case);
    Expr cond = GuardCondition(op);
    if (!cond.defined()) return ir::IfThenElse(op->condition, then_case, VisitStmt(op->else_case));
    std::vector<Expr> parts;
    SplitConjunction(cond, &parts);
    Expr kept;
    for (const Expr& c : parts) {
      bool drop = false;
      for (const Expr& p : proven_) drop = drop || ir::StructuralEqual(p, c);
      if (!drop) kept = kept.defined() ? (kept && c) : c;
    }
    if (!kept.defined()) return then_case;
    return ir::IfThenElse(ir::likely(kept), then_case);
  }

 private:
  const std::vector<Expr>& proven_;
};

// A condition, in enclosing variables only, under which `c` holds for every value of `var` in
// `range`; null when it cannot be stated.
Expr HoldsForAll(const Expr& c, const ir::Var& var, const ir::Range& range,
                 const arith::Analyzer& an) {
  const ir::BinaryNode* cmp = ir::AsBinary(c);
  if (!cmp || !cmp->a.dtype().is_integer() || !cmp->a.dtype().is_scalar()) return Expr();
  arith::VarIntervalMap relax{{var.get(), arith::IntervalSet::FromRange(range)}};
  arith::IntervalSet diff = arith::EvalIntervalSet(an.Simplify(cmp->a - cmp->b), relax, an);
  switch (cmp->kind()) {
    case ir::kLT:
      return diff.max.defined() ? an.Simplify(diff.max < 0) : Expr();
    case ir::kLE:
      return diff.max.defined() ? an.Simplify(diff.max <= 0) : Expr();
    case ir::kGT:
      return diff.min.defined() ? an.Simplify(diff.min > 0) : Expr();
    case ir::kGE:
      return diff.min.defined() ? an.Simplify(diff.min >= 0) : Expr();
    default:
      return Expr();
  }
}

class Partitioner : public ir::StmtMutator {
 public:
  Stmt VisitStmt_(const ir::ForNode* op) override {
    Stmt body = VisitStmt(op->body);
    Stmt loop = body.same_as(op->body) ? Stmt(op)
                                       : ir::For(op->loop_var, op->min, op->extent, op->for_kind,
                                                 body, op->thread_tag);
    HasLoop inner_loop;
    inner_loop.VisitStmt(body);
    if (inner_loop.found && op->for_kind != ir::ForKind::kVectorized) return loop;
    if (op->for_kind == ir::ForKind::kParallel || op->for_kind == ir::ForKind::kThreadBinding)
      return loop;
    DefinedVars defined;
    defined.VisitStmt(body);
    CollectCandidates collect(op->loop_var, defined.vars);
    collect.VisitStmt(body);
    if (collect.candidates.empty()) return loop;
    arith::Analyzer an;
    ir::Range range = ir::Range::FromMinExtent(op->min, op->extent);
    std::vector<Expr> proven;
    Expr all;
    for (const Expr& c : collect.candidates) {
      Expr holds = HoldsForAll(c, op->loop_var, range, an);
      if (!holds.defined() || ir::UsesVar(holds, {op->loop_var.get()}) || ir::IsConstInt(holds, 0))
        continue;
      proven.push_back(c);
      all = all.defined() ? (all && holds) : holds;
    }
    if (proven.empty()) return loop;
    Stmt fast_body = DropGuards(proven).VisitStmt(body);
    Stmt fast = ir::For(op->loop_var, op->min, op->extent, op->for_kind, fast_body, op->thread_tag);
    if (ir::IsConstInt(all, 1)) return fast;
    return ir::IfThenElse(ir::likely(all), fast, loop);
  }
};

}  // namespace

Stmt PartitionLoops(const Stmt& body) { return Partitioner().VisitStmt(body); }

}  // namespace lower
}  // namespace tessera
