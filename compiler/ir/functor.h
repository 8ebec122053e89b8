/// \file
/// Visitor and mutator bases. Subclasses override `VisitExpr_`/`VisitStmt_` for the kinds they
/// care about and call the base version to recurse. Mutators are copy-on-write: a node whose
/// children come back unchanged is returned as the same node.
#ifndef TESSERA_COMPILER_IR_FUNCTOR_H_
#define TESSERA_COMPILER_IR_FUNCTOR_H_

#include "compiler/ir/function.h"
#include "compiler/ir/stmt.h"

namespace tessera {
namespace ir {

/// Walks expressions.
class ExprVisitor {
 public:
  virtual ~ExprVisitor() = default;
  /// Dispatches on the node kind (null expressions are ignored).
  virtual void VisitExpr(const Expr& e);
  virtual void VisitExpr_(const IntImmNode* op);        ///< leaf
  virtual void VisitExpr_(const FloatImmNode* op);      ///< leaf
  virtual void VisitExpr_(const StringImmNode* op);     ///< leaf
  virtual void VisitExpr_(const VarNode* op);           ///< leaf
  virtual void VisitExpr_(const BinaryNode* op);        ///< all binary kinds
  virtual void VisitExpr_(const NotNode* op);           ///< visits the operand
  virtual void VisitExpr_(const SelectNode* op);        ///< visits the children
  virtual void VisitExpr_(const CastNode* op);          ///< visits the value
  virtual void VisitExpr_(const RampNode* op);          ///< visits base, stride
  virtual void VisitExpr_(const BroadcastNode* op);     ///< visits the value
  virtual void VisitExpr_(const LoadNode* op);          ///< visits buffer var and index
  virtual void VisitExpr_(const CallNode* op);          ///< visits the arguments
  virtual void VisitExpr_(const LetNode* op);           ///< visits var, value, body
  virtual void VisitExpr_(const ProducerLoadNode* op);  ///< visits the indices
  virtual void VisitExpr_(const ReduceNode* op);        ///< visits source, condition, axis domains
};

/// Walks statements; expressions inside are handed to `VisitExpr` (a no-op here).
class StmtVisitor {
 public:
  virtual ~StmtVisitor() = default;
  /// Dispatches on the node kind (null statements are ignored).
  virtual void VisitStmt(const Stmt& s);
  /// Called for every expression directly inside a statement.
  virtual void VisitExpr(const Expr& e) {}
  virtual void VisitStmt_(const LetStmtNode* op);          ///< visits children
  virtual void VisitStmt_(const AttrStmtNode* op);         ///< visits children
  virtual void VisitStmt_(const AssertStmtNode* op);       ///< visits children
  virtual void VisitStmt_(const StoreNode* op);            ///< visits children
  virtual void VisitStmt_(const AllocateNode* op);         ///< visits children
  virtual void VisitStmt_(const ForNode* op);              ///< visits children
  virtual void VisitStmt_(const IfThenElseNode* op);       ///< visits children
  virtual void VisitStmt_(const SeqStmtNode* op);          ///< visits children
  virtual void VisitStmt_(const EvaluateNode* op);         ///< visits children
  virtual void VisitStmt_(const ProducerStoreNode* op);    ///< visits children
  virtual void VisitStmt_(const ProducerRealizeNode* op);  ///< visits children
};

/// Walks statements and the expressions inside them.
class StmtExprVisitor : public StmtVisitor, public ExprVisitor {
 public:
  using ExprVisitor::VisitExpr_;
  using StmtVisitor::VisitStmt_;
  /// Dispatches expressions to `ExprVisitor`.
  void VisitExpr(const Expr& e) override { ExprVisitor::VisitExpr(e); }
};

/// Rewrites expressions.
class ExprMutator {
 public:
  virtual ~ExprMutator() = default;
  /// Dispatches on the node kind (null expressions come back null).
  virtual Expr VisitExpr(const Expr& e);
  virtual Expr VisitExpr_(const IntImmNode* op);        ///< returns the node
  virtual Expr VisitExpr_(const FloatImmNode* op);      ///< returns the node
  virtual Expr VisitExpr_(const StringImmNode* op);     ///< returns the node
  virtual Expr VisitExpr_(const VarNode* op);           ///< returns the node
  virtual Expr VisitExpr_(const BinaryNode* op);        ///< rebuilds when an operand changed
  virtual Expr VisitExpr_(const NotNode* op);           ///< rebuilds when changed
  virtual Expr VisitExpr_(const SelectNode* op);        ///< rebuilds when changed
  virtual Expr VisitExpr_(const CastNode* op);          ///< rebuilds when changed
  virtual Expr VisitExpr_(const RampNode* op);          ///< rebuilds when changed
  virtual Expr VisitExpr_(const BroadcastNode* op);     ///< rebuilds when changed
  virtual Expr VisitExpr_(const LoadNode* op);          ///< rebuilds when changed
  virtual Expr VisitExpr_(const CallNode* op);          ///< rebuilds when changed
  virtual Expr VisitExpr_(const LetNode* op);           ///< rebuilds when changed
  virtual Expr VisitExpr_(const ProducerLoadNode* op);  ///< rebuilds when changed
  virtual Expr VisitExpr_(const ReduceNode* op);        ///< rebuilds when source/condition changed
};

/// Rewrites statements; expressions inside go through `VisitExpr` (identity here).
class StmtMutator {
 public:
  virtual ~StmtMutator() = default;
  /// Dispatches on the node kind (null statements come back null).
  virtual Stmt VisitStmt(const Stmt& s);
  /// Called for every expression directly inside a statement.
  virtual Expr VisitExpr(const Expr& e) { return e; }
  virtual Stmt VisitStmt_(const LetStmtNode* op);          ///< rebuilds when changed
  virtual Stmt VisitStmt_(const AttrStmtNode* op);         ///< rebuilds when changed
  virtual Stmt VisitStmt_(const AssertStmtNode* op);       ///< rebuilds when changed
  virtual Stmt VisitStmt_(const StoreNode* op);            ///< rebuilds when changed
  virtual Stmt VisitStmt_(const AllocateNode* op);         ///< rebuilds when changed
  virtual Stmt VisitStmt_(const ForNode* op);              ///< rebuilds when changed
  virtual Stmt VisitStmt_(const IfThenElseNode* op);       ///< rebuilds when changed
  virtual Stmt VisitStmt_(const SeqStmtNode* op);          ///< rebuilds when changed
  virtual Stmt VisitStmt_(const EvaluateNode* op);         ///< rebuilds when changed
  virtual Stmt VisitStmt_(const ProducerStoreNode* op);    ///< rebuilds when changed
  virtual Stmt VisitStmt_(const ProducerRealizeNode* op);  ///< rebuilds when changed
};

/// Rewrites statements and the expressions inside them.
class StmtExprMutator : public StmtMutator, public ExprMutator {
 public:
  using ExprMutator::VisitExpr_;
  using StmtMutator::VisitStmt_;
  /// Dispatches expressions to `ExprMutator`.
  Expr VisitExpr(const Expr& e) override { return ExprMutator::VisitExpr(e); }
};

/// Rebuilds a binary node of `op`'s kind from new operands (same kind, operand types).
Expr RebuildBinary(const BinaryNode* op, Expr a, Expr b);

}  // namespace ir
}  // namespace tessera

#endif  // TESSERA_COMPILER_IR_FUNCTOR_H_
