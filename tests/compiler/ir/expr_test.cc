#include <gtest/gtest.h>

#include "compiler/ir/expr.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/support/error.h"

namespace tessera {
namespace ir {
namespace {

TEST(ExprTest, ConstantsFold) {
  Expr e = Expr(3) + 4;
  ASSERT_TRUE(e.as<IntImmNode>());
  EXPECT_EQ(e.as<IntImmNode>()->value, 7);
  EXPECT_EQ(*AsConstInt(floordiv(Expr(-7), 2)), -4);
  EXPECT_EQ(*AsConstInt(floormod(Expr(-7), 2)), 1);
  EXPECT_EQ(*AsConstInt(truncdiv(Expr(-7), 2)), -3);
  EXPECT_EQ(*AsConstInt(truncmod(Expr(-7), 2)), -1);
  EXPECT_EQ(*AsConstInt(min(Expr(3), 9)), 3);
}

TEST(ExprTest, IdentitiesAndKinds) {
  Var x("x");
  EXPECT_TRUE((x + 0).same_as(x));
  EXPECT_TRUE((x * 1).same_as(x));
  EXPECT_TRUE((x * 0).as<IntImmNode>());
  EXPECT_TRUE((x / 4).as<FloorDivNode>());
  EXPECT_TRUE((x % 4).as<FloorModNode>());
  EXPECT_TRUE((x < 3).dtype().is_bool());
  EXPECT_EQ((x < 3).as<LTNode>()->b.as<IntImmNode>()->value, 3);
}

TEST(ExprTest, PromotesIntToFloatAndScalarToVector) {
  Var x("x");
  Expr f = x * 2.5f;
  EXPECT_EQ(f.dtype(), DataType::Float(32));
  Expr v = Ramp(x, 1, 4) + x;
  EXPECT_EQ(v.dtype(), DataType::Int(32, 4));
  Var y("y", DataType::Int(64));
  EXPECT_EQ((x + y).dtype(), DataType::Int(64));
  EXPECT_EQ((y + 1).dtype(), DataType::Int(64));
}

TEST(ExprTest, MisuseIsUserError) {
  Var x("x");
  Var h("h", DataType::Handle());
  EXPECT_THROW(x + h, UserError);
  EXPECT_THROW(Expr(1.0f) % 2.0f, UserError);
  EXPECT_THROW(floordiv(x, 0), UserError);
  EXPECT_THROW(Expr() + x, UserError);
  EXPECT_THROW(x && x, UserError);
}

TEST(ExprTest, RawFactoriesCheckTypes) {
  Var x("x");
  Var f("f", DataType::Float(32));
  EXPECT_THROW(Add(x, f), InternalError);
  EXPECT_THROW(Select(x, x, x), InternalError);
}

TEST(ExprTest, MathIntrinsicsAreCalls) {
  Var f("f", DataType::Float(32));
  Expr e = exp(f);
  ASSERT_TRUE(e.as<CallNode>());
  EXPECT_EQ(e.as<CallNode>()->name, "exp");
  EXPECT_EQ(fma(f, f, f).dtype(), DataType::Float(32));
  EXPECT_EQ(if_then_else(f > 0.0f, f, 0.0f).as<CallNode>()->name, "tessera.if_then_else");
}

TEST(ExprTest, ReferenceCountsAreReleased) {
  Var x("x");
  {
    Expr e = x + 1;
    EXPECT_EQ(x.get()->use_count(), 2);
  }
  EXPECT_EQ(x.get()->use_count(), 1);
}

}  // namespace
}  // namespace ir
}  // namespace tessera
