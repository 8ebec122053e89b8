#include "compiler/ir/structural_equal.h"

#include <gtest/gtest.h>

#include "compiler/ir/op.h"
#include "compiler/ir/stmt.h"

namespace tessera {
namespace ir {
namespace {

Stmt Loop(Var i, Var buf, int extent) {
  return For(i, 0, extent, ForKind::kSerial, Store(buf, cast(DataType::Float(32), i * 2), i));
}

TEST(StructuralEqualTest, BoundVariablesCompareByPosition) {
  Var buf("A", DataType::Handle());
  Stmt a = Loop(Var("i"), buf, 8), b = Loop(Var("k"), buf, 8), c = Loop(Var("i"), buf, 9);
  EXPECT_TRUE(StructuralEqual(a, b));
  EXPECT_FALSE(StructuralEqual(a, c));
  EXPECT_EQ(StructuralHash(a), StructuralHash(b));
  EXPECT_NE(StructuralHash(a), StructuralHash(c));
}

TEST(StructuralEqualTest, FreeVariablesNeedIdentityUnlessMapped) {
  Var x("x"), y("y");
  EXPECT_TRUE(StructuralEqual(x + 1, x + 1));
  EXPECT_FALSE(StructuralEqual(x + 1, y + 1));
  EXPECT_TRUE(StructuralEqual(x + 1, y + 1, /*map_free_vars=*/true));
  EXPECT_FALSE(StructuralEqual(x + x, x + y, true));  // mapping must be one to one
  EXPECT_EQ(StructuralHash(x + 1), StructuralHash(y + 1));
}

TEST(StructuralEqualTest, ConstantsAndTypesMatter) {
  Var x("x");
  EXPECT_FALSE(StructuralEqual(x + 1, x + 2));
  EXPECT_FALSE(StructuralEqual(Expr(1), IntImm(DataType::Int(64), 1)));
  EXPECT_FALSE(StructuralEqual(x + 1, x - 1));
  EXPECT_TRUE(StructuralEqual(Expr(1.5f), Expr(1.5f)));
}

}  // namespace
}  // namespace ir
}  // namespace tessera
