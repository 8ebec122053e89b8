#include "compiler/ir/functor.h"

#include <gtest/gtest.h>

#include <map>

#include "compiler/ir/op.h"

namespace tessera {
namespace ir {
namespace {

class CountVars : public StmtExprVisitor {
 public:
  int count = 0;
  void VisitExpr_(const VarNode*) override { ++count; }
};

class RenameX : public StmtExprMutator {
 public:
  Var from, to;
  Expr VisitExpr_(const VarNode* op) override {
    if (op == from.get()) return to;
    return Expr(op);
  }
};

TEST(FunctorTest, VisitorSeesEveryVariableUse) {
  Var i("i"), buf("A", DataType::Handle());
  Stmt s = For(i, 0, 10, ForKind::kSerial, Store(buf, Cast(DataType::Float(32), i), i));
  CountVars c;
  c.VisitStmt(s);
  EXPECT_EQ(c.count, 4);  // loop var, store buffer, i in the value, i as the index
}

TEST(FunctorTest, MutatorIsCopyOnWrite) {
  Var i("i"), j("j"), k("k"), buf("A", DataType::Handle());
  Stmt store = Store(buf, Cast(DataType::Float(32), i), j + 1);
  Stmt s = SeqStmt({store, Evaluate(i)});
  RenameX r;
  r.from = k;
  r.to = i;
  EXPECT_TRUE(r.VisitStmt(s).same_as(s));
  r.from = j;
  Stmt out = r.VisitStmt(s);
  EXPECT_FALSE(out.same_as(s));
  const auto* seq = out.as<SeqStmtNode>();
  ASSERT_TRUE(seq);
  EXPECT_TRUE(seq->seq[1].same_as(s.as<SeqStmtNode>()->seq[1]));  // untouched child shared
  const auto* add = seq->seq[0].as<StoreNode>()->index.as<AddNode>();
  EXPECT_TRUE(add->a.same_as(i));
}

TEST(FunctorTest, SeqStmtFlattens) {
  Stmt a = Evaluate(1), b = Evaluate(2), c = Evaluate(3);
  Stmt s = SeqStmt({a, SeqStmt({b, c}), Stmt()});
  ASSERT_TRUE(s.as<SeqStmtNode>());
  EXPECT_EQ(s.as<SeqStmtNode>()->seq.size(), 3u);
  EXPECT_TRUE(SeqStmt({a}).same_as(a));
}

// Evaluates integer expressions with the variables' values as an extra argument.
class Evaluator
    : public ExprFunctor<int64_t(const Expr&, const std::map<const Object*, int64_t>&)> {
 public:
  using Env = std::map<const Object*, int64_t>;
  int64_t VisitExpr_(const IntImmNode* op, const Env&) override { return op->value; }
  int64_t VisitExpr_(const VarNode* op, const Env& env) override { return env.at(op); }
  int64_t VisitExpr_(const BinaryNode* op, const Env& env) override {
    int64_t a = VisitExpr(op->a, env), b = VisitExpr(op->b, env);
    switch (op->kind()) {
      case kAdd:
        return a + b;
      case kMul:
        return a * b;
      default:
        return VisitExprDefault_(op, env);
    }
  }
};

TEST(FunctorTest, ExprFunctorReturnsValuesAndPassesArguments) {
  Var x("x"), y("y");
  Evaluator eval;
  EXPECT_EQ(eval.VisitExpr(Add(Mul(x, 3), y), {{x.get(), 4}, {y.get(), 5}}), 17);
  try {
    eval.VisitExpr(Select(EQ(x, 1), x, y), {});
    FAIL() << "no error";
  } catch (const InternalError& e) {
    // The prefix belongs to the error type ("internal ... error: "); the message is ours.
    EXPECT_NE(std::string(e.what()).find("no handler for expression Select"), std::string::npos)
        << e.what();
  }
}

class CountStores : public StmtFunctor<int(const Stmt&)> {
 public:
  int VisitStmt_(const StoreNode*) override { return 1; }
  int VisitStmt_(const ForNode* op) override { return VisitStmt(op->body); }
  int VisitStmt_(const SeqStmtNode* op) override {
    int n = 0;
    for (const Stmt& s : op->seq) n += VisitStmt(s);
    return n;
  }
};

TEST(FunctorTest, StmtFunctorDispatchesOnTheStatementKind) {
  Var i("i"), buf("A", DataType::Handle());
  Stmt store = Store(buf, Cast(DataType::Float(32), i), i);
  EXPECT_EQ(CountStores().VisitStmt(For(i, 0, 4, ForKind::kSerial, SeqStmt({store, store}))), 2);
  EXPECT_THROW(CountStores().VisitStmt(Evaluate(i)), InternalError);
}

}  // namespace
}  // namespace ir
}  // namespace tessera
