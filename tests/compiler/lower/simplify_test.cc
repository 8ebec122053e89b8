// The simplify pass on hand-built statements: guards that always or never hold under the loop
// ranges, one-iteration loops, empty statements, arithmetic.
#include "compiler/lower/simplify.h"

#include <gtest/gtest.h>

#include "tests/compiler/lower/pass_test_util.h"

namespace tessera {
namespace lower {
namespace {

using namespace testing;  // NOLINT

TEST(SimplifyTest, GuardsProvedByLoopRangesDisappear) {
  ir::Var a = Buffer("A"), i("i");
  ir::Stmt s = Loop(i, 8,
                    ir::SeqStmt({ir::IfThenElse(i < 8, ir::Store(a, 1.0f, i)),
                                 ir::IfThenElse(i >= 8, ir::Store(a, 2.0f, i))}));
  EXPECT_EQ(ir::ToText(Simplify(s)), "for i in [0, +8) {\n  A[i] = 1f\n}\n");
}

TEST(SimplifyTest, OneIterationLoopBecomesItsBody) {
  ir::Var a = Buffer("A"), i("i"), j("j");
  ir::Stmt s = Loop(i, 1, Loop(j, 4, ir::Store(a, 0.0f, (i * 4 + j) * 1 + 0)));
  EXPECT_EQ(ir::ToText(Simplify(s)), "for j in [0, +4) {\n  A[j] = 0f\n}\n");
}

TEST(SimplifyTest, IndexArithmeticFolds) {
  ir::Var a = Buffer("A"), i("i");
  ir::Stmt s =
      Loop(i, 16, ir::Store(a, 0.0f, ir::floordiv(i * 4 + 2, 4) * 4 + ir::floormod(i * 4 + 2, 4)));
  EXPECT_EQ(ir::ToText(Simplify(s)), "for i in [0, +16) {\n  A[((i*4) + 2)] = 0f\n}\n");
}

}  // namespace
}  // namespace lower
}  // namespace tessera
