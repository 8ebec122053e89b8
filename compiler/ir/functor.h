/// \file
/// Visitor and mutator bases, and value-returning functors. Subclasses override
/// `VisitExpr_`/`VisitStmt_` for the kinds they care about and call the base version to recurse.
/// Mutators are copy-on-write: a node whose children come back unchanged is returned as the
/// same node. `ExprFunctor<R(const Expr&, Args...)>` and `StmtFunctor<...>` return any type and
/// have no default traversal (code generators). Every dispatch switch is generated from
/// `compiler/ir/node_kinds.def`.
#ifndef TESSERA_COMPILER_IR_FUNCTOR_H_
#define TESSERA_COMPILER_IR_FUNCTOR_H_

#include <string>
#include <utility>

#include "compiler/ir/function.h"
#include "compiler/ir/stmt.h"
#include "compiler/support/error.h"

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

template <typename F>
class ExprFunctor;

/// A value-returning function over expressions, dispatched on the node kind: `VisitExpr(e,
/// args...)` calls the `VisitExpr_` overload of `e`'s node (all binary kinds share the
/// `BinaryNode` one). Overloads that a subclass does not override call `VisitExprDefault_`,
/// which throws `InternalError` naming the node; override it to handle the rest at once.
///
///   class Printer : public ExprFunctor<std::string(const Expr&)> { ... };
template <typename R, typename... Args>
class ExprFunctor<R(const Expr&, Args...)> {
 public:
  virtual ~ExprFunctor() = default;
  /// Dispatches `e` (which must not be null) to its `VisitExpr_`.
  virtual R VisitExpr(const Expr& e, Args... args) {
    TESSERA_INTERNAL_CHECK(e.defined()) << "ExprFunctor: null expression";
    const Object* n = e.get();
    switch (n->kind()) {
#define TESSERA_EXPR_NODE(Name) \
  case k##Name:                 \
    return VisitExpr_(static_cast<const Name##Node*>(n), std::forward<Args>(args)...);
#include "compiler/ir/node_kinds.def"
#define TESSERA_BINARY_NODE(Name) case k##Name:
#include "compiler/ir/node_kinds.def"
      return VisitExpr_(static_cast<const BinaryNode*>(n), std::forward<Args>(args)...);
      default:
        return VisitExprDefault_(n, std::forward<Args>(args)...);
    }
  }
#define TESSERA_EXPR_NODE(Name)                                \
  /** Handles Name##Node (default: `VisitExprDefault_`). */    \
  virtual R VisitExpr_(const Name##Node* op, Args... args) {   \
    return VisitExprDefault_(op, std::forward<Args>(args)...); \
  }
#include "compiler/ir/node_kinds.def"
  /// Handles every binary kind (default: `VisitExprDefault_`).
  virtual R VisitExpr_(const BinaryNode* op, Args... args) {
    return VisitExprDefault_(op, std::forward<Args>(args)...);
  }
  /// Called for nodes without an override; throws `InternalError` naming the node.
  virtual R VisitExprDefault_(const Object* op, Args...) {
    throw InternalError(std::string("no handler for expression ") + op->type_name());
  }
};

template <typename F>
class StmtFunctor;

/// A value-returning function over statements, dispatched on the node kind like `ExprFunctor`;
/// statements without an override go to `VisitStmtDefault_`, which throws `InternalError`.
template <typename R, typename... Args>
class StmtFunctor<R(const Stmt&, Args...)> {
 public:
  virtual ~StmtFunctor() = default;
  /// Dispatches `s` (which must not be null) to its `VisitStmt_`.
  virtual R VisitStmt(const Stmt& s, Args... args) {
    TESSERA_INTERNAL_CHECK(s.defined()) << "StmtFunctor: null statement";
    const Object* n = s.get();
    switch (n->kind()) {
#define TESSERA_STMT_NODE(Name) \
  case k##Name:                 \
    return VisitStmt_(static_cast<const Name##Node*>(n), std::forward<Args>(args)...);
#include "compiler/ir/node_kinds.def"
      default:
        return VisitStmtDefault_(n, std::forward<Args>(args)...);
    }
  }
#define TESSERA_STMT_NODE(Name)                                \
  /** Handles Name##Node (default: `VisitStmtDefault_`). */    \
  virtual R VisitStmt_(const Name##Node* op, Args... args) {   \
    return VisitStmtDefault_(op, std::forward<Args>(args)...); \
  }
#include "compiler/ir/node_kinds.def"
  /// Called for nodes without an override; throws `InternalError` naming the node.
  virtual R VisitStmtDefault_(const Object* op, Args...) {
    throw InternalError(std::string("no handler for statement ") + op->type_name());
  }
};

/// Rebuilds a binary node of `op`'s kind from new operands (same kind, operand types).
Expr RebuildBinary(const BinaryNode* op, Expr a, Expr b);

}  // namespace ir
}  // namespace tessera

#endif  // TESSERA_COMPILER_IR_FUNCTOR_H_
