#include "compiler/arith/int_set.h"

#include <gtest/gtest.h>

#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"

namespace tessera {
namespace arith {
namespace {

using namespace ir;  // NOLINT

TEST(IntSetTest, RelaxesInnerKeepsOuterSymbolic) {
  Analyzer an;
  Var io("io"), ii("ii"), k("k");
  VarIntervalMap relax{{ii.get(), IntervalSet::FromRange(Range::FromMinExtent(0, 8))},
                       {k.get(), IntervalSet::FromRange(Range::FromMinExtent(0, 3))}};
  IntervalSet s = EvalIntervalSet(io * 8 + ii + k, relax, an);
  ASSERT_TRUE(s.bounded());
  EXPECT_EQ(ToText(s.min), "(io*8)");
  EXPECT_EQ(ToText(s.max), "((io*8) + 9)");
  EXPECT_TRUE(IsConstInt(an.Simplify(s.max - s.min + 1), 10));
}

TEST(IntSetTest, DivModAndNegativeScale) {
  Analyzer an;
  Var f("f");
  VarIntervalMap relax{{f.get(), IntervalSet::FromRange(Range::FromMinExtent(0, 12))}};
  IntervalSet d = EvalIntervalSet(floordiv(f, 4), relax, an);
  EXPECT_EQ(ToText(d.max), "2");
  IntervalSet m = EvalIntervalSet(floormod(f, 4), relax, an);
  EXPECT_EQ(ToText(m.min), "0");
  EXPECT_EQ(ToText(m.max), "3");
  IntervalSet n = EvalIntervalSet(10 - f * 2, relax, an);
  EXPECT_EQ(ToText(n.min), "-12");
  EXPECT_EQ(ToText(n.max), "10");
}

TEST(IntSetTest, UnknownReadIsUnbounded) {
  Analyzer an;
  Var f("f"), buf("B", DataType::Handle());
  VarIntervalMap relax{{f.get(), IntervalSet::FromRange(Range::FromMinExtent(0, 12))}};
  IntervalSet s = EvalIntervalSet(Load(DataType::Int(32), buf, f), relax, an);
  EXPECT_TRUE(s.min.defined());  // the int32 type range
  EXPECT_EQ(ToText(s.min), "-2147483648");
}

}  // namespace
}  // namespace arith
}  // namespace tessera
