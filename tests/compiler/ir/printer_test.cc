#include "compiler/ir/printer.h"

#include <gtest/gtest.h>

#include "compiler/ir/op.h"

namespace tessera {
namespace ir {
namespace {

TEST(PrinterTest, Expressions) {
  Var i("i"), j("j");
  EXPECT_EQ(ToText(i * 4 + j), "((i*4) + j)");
  EXPECT_EQ(ToText(floordiv(i, 3)), "floordiv(i, 3)");
  EXPECT_EQ(ToText(Ramp(i, 1, 4)), "ramp(i, 1, 4)");
  EXPECT_EQ(ToText(cast(DataType::Float(32), i)), "float32(i)");
}

TEST(PrinterTest, LoopNest) {
  Var i("i"), buf("C", DataType::Handle());
  Stmt s = For(i, 0, 8, ForKind::kParallel, Store(buf, Expr(1.5f), i));
  PrimFunc f("f", {buf}, s);
  EXPECT_EQ(ToText(f),
            "func f(C: handle) {\n"
            "  for i in [0, +8) parallel {\n"
            "    C[i] = 1.5f\n"
            "  }\n"
            "}\n");
}

}  // namespace
}  // namespace ir
}  // namespace tessera
