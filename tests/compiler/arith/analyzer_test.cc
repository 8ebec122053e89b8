#include "compiler/arith/analyzer.h"

#include <gtest/gtest.h>

#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"

namespace tessera {
namespace arith {
namespace {

using namespace ir;  // NOLINT

TEST(AnalyzerTest, CollectsLinearTerms) {
  Analyzer a;
  Var x("x"), y("y");
  EXPECT_EQ(ToText(a.Simplify((x * 32 + y) - x * 32)), "y");
  EXPECT_EQ(ToText(a.Simplify(x + y + 3 - (y + 1))), "(x + 2)");
  EXPECT_EQ(ToText(a.Simplify((x + 1) * 4 - 4)), "(x*4)");
  EXPECT_TRUE(IsConstInt(a.Simplify(x - x), 0));
}

TEST(AnalyzerTest, FloorDivAndModWithBounds) {
  Analyzer a;
  Var xo("xo"), xi("xi");
  a.Bind(xi, Range::FromMinExtent(0, 8));
  a.Bind(xo, Range::FromMinExtent(0, 4));
  EXPECT_EQ(ToText(a.Simplify(floordiv(xo * 8 + xi, 8))), "xo");
  EXPECT_EQ(ToText(a.Simplify(floormod(xo * 8 + xi, 8))), "xi");
  Var z("z");
  EXPECT_EQ(ToText(a.Simplify(floordiv(floordiv(z, 2), 2))), "floordiv(z, 4)");
  EXPECT_TRUE(IsConstInt(a.Simplify(floordiv(xo, 4)), 0));  // xo < 4
  EXPECT_EQ(ToText(a.Simplify(floormod(xo * 8 + xi + 3, 4))), "floormod((xi + 3), 4)");
}

// A row unflattened into [56, 56] and flattened again is the row: with bounds (a tile of a
// 3136-row product) and without (the identity holds for every integer).
TEST(AnalyzerTest, FlattenedUnflattenedIndexIsTheIndex) {
  Analyzer a;
  Var y("y"), yt("yt"), yi("yi");
  EXPECT_EQ(ToText(a.Simplify(floordiv(y, 56) * 56 + floormod(y, 56))), "y");
  EXPECT_EQ(ToText(a.Simplify((floordiv(y, 7) * 14 + floormod(y, 7) * 2) + 1)), "((y*2) + 1)");
  a.Bind(yt, Range::FromMinExtent(0, 28));
  a.Bind(yi, Range::FromMinExtent(0, 112));
  Expr row = yt * 112 + yi;
  EXPECT_EQ(ToText(a.Simplify(floormod(floordiv(row, 56), 56) * 56 + floormod(row, 56))),
            "((yt*112) + yi)");
  // Different divisors or operands stay as they are.
  EXPECT_EQ(ToText(a.Simplify(floordiv(y, 8) * 56 + floormod(y, 56))),
            "((floordiv(y, 8)*56) + floormod(y, 56))");
}

TEST(AnalyzerTest, FoldsVectorIndexArithmetic) {
  Analyzer a;
  Var jo("jo"), k("k");
  a.Bind(jo, Range::FromMinExtent(0, 4));
  Expr lanes = Ramp(jo * 32, 1, 32);
  // packed[j / 32, k, j % 32] for j = 32*jo + lane: one contiguous run of 32 elements.
  Expr index = FloorDiv(lanes, Broadcast(Expr(32), 32)) * Broadcast(Expr(2048), 32) +
               Broadcast(k * 32, 32) + FloorMod(lanes, Broadcast(Expr(32), 32));
  EXPECT_EQ(ToText(a.Simplify(index)), "ramp(((jo*2048) + (k*32)), 1, 32)");
  // Lanes that straddle a block boundary stay as they are.
  Expr straddling = FloorDiv(Ramp(jo * 32 + 16, 1, 32), Broadcast(Expr(32), 32));
  EXPECT_EQ(a.Simplify(straddling).as<RampNode>(), nullptr);
  EXPECT_NE(a.Simplify(straddling).as<FloorDivNode>(), nullptr);
}

TEST(AnalyzerTest, ProvesTailConditions) {
  Analyzer a;
  Var xo("xo"), xi("xi");
  a.Bind(xo, Range::FromMinExtent(0, 4));  // 32 = 4 * 8: divisible
  a.Bind(xi, Range::FromMinExtent(0, 8));
  EXPECT_TRUE(a.CanProve(xo * 8 + xi < 32));
  EXPECT_FALSE(a.CanProve(xo * 8 + xi < 31));  // 31 is not a multiple of 8: the guard stays
  EXPECT_TRUE(a.CanProve(xo * 8 + xi >= 0));
  EXPECT_TRUE(IsConstInt(a.Simplify(min(xi, 8)), 0) == false);
  EXPECT_EQ(ToText(a.Simplify(min(xi, 8))), "xi");
  EXPECT_EQ(ToText(a.Simplify(max(xi, 8))), "8");
}

TEST(AnalyzerTest, FoldsLogicAndSelect) {
  Analyzer a;
  Var i("i");
  a.Bind(i, Range::FromMinExtent(0, 4));
  EXPECT_EQ(ToText(a.Simplify(select(i < 4, i, i + 1))), "i");
  EXPECT_EQ(ToText(a.Simplify((i < 4) && (i < 2))), "(i < 2)");
}

// A vectorized select over a loop-invariant condition (a transform's row picked by an unrolled
// index) broadcasts the condition; once the index is a constant, one side remains.
TEST(AnalyzerTest, FoldsASelectOnABroadcastConstantCondition) {
  Analyzer a;
  Var x("x", DataType::Float(32, 4));
  Expr chosen =
      Select(Broadcast(IntImm(DataType::Int(32), 2) == IntImm(DataType::Int(32), 2), 4), x, x + x);
  EXPECT_EQ(ToText(a.Simplify(chosen)), "x");
  Expr other =
      Select(Broadcast(IntImm(DataType::Int(32), 1) == IntImm(DataType::Int(32), 2), 4), x, x * x);
  EXPECT_EQ(ToText(a.Simplify(other)), "(x*x)");
}

}  // namespace
}  // namespace arith
}  // namespace tessera
