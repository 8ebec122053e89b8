#include "compiler/arith/const_int_bound.h"

#include <gtest/gtest.h>

#include "compiler/ir/op.h"

namespace tessera {
namespace arith {
namespace {

using namespace ir;  // NOLINT

TEST(ConstIntBoundTest, LinearAndDivision) {
  Var i("i"), j("j");
  VarBoundMap m{{i.get(), {0, 9}}, {j.get(), {0, 3}}};
  ConstIntBound b = EvalConstIntBound(i * 4 + j, m);
  EXPECT_EQ(b.min, 0);
  EXPECT_EQ(b.max, 39);
  b = EvalConstIntBound(floordiv(i * 4 + j, 8), m);
  EXPECT_EQ(b.max, 4);
  b = EvalConstIntBound(floormod(i, 4), m);
  EXPECT_EQ(b.min, 0);
  EXPECT_EQ(b.max, 3);
  b = EvalConstIntBound(0 - i, m);
  EXPECT_EQ(b.min, -9);
  EXPECT_EQ(b.max, 0);
}

// A multiple of 16 modulo 64 is 0, 16, 32 or 48; one of 8 at most 56; an odd number 63.
TEST(ConstIntBoundTest, AKnownMultipleModuloADivisibleConstant) {
  Var x("x"), y("y");
  ConstIntBound b = EvalConstIntBound(floormod(x * 16 + y * 32, 64), {});
  EXPECT_EQ(b.min, 0);
  EXPECT_EQ(b.max, 48);
  b = EvalConstIntBound(floormod(x * 16 + 8, 64), {});
  EXPECT_EQ(b.max, 56);
  b = EvalConstIntBound(floormod(x * 16 + 3, 64), {});
  EXPECT_EQ(b.max, 63);
}

TEST(ConstIntBoundTest, UnknownVariablesUseTheirTypeRange) {
  Var x("x");
  ConstIntBound b = EvalConstIntBound(x + 1, {});
  EXPECT_EQ(b.min, -(int64_t{1} << 31) + 1);
  EXPECT_EQ(b.max, int64_t{1} << 31);
  Var y("y", DataType::Int(64));
  b = EvalConstIntBound(y * 2, {});
  EXPECT_EQ(b.max, ConstIntBound::kPosInf);
}

TEST(ConstIntBoundTest, ComparisonsDecide) {
  Var i("i");
  VarBoundMap m{{i.get(), {0, 9}}};
  EXPECT_EQ(EvalConstIntBound(i < 10, m).min, 1);
  EXPECT_EQ(EvalConstIntBound(i < 5, m).min, 0);
  EXPECT_EQ(EvalConstIntBound(i < 5, m).max, 1);
  EXPECT_EQ(EvalConstIntBound(i > 20, m).max, 0);
}

}  // namespace
}  // namespace arith
}  // namespace tessera
