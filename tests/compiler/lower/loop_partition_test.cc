// The loop partition pass on a hand-built guarded loop: a guard-free fast path for full tiles
// and the guarded original for the tail.
#include "compiler/lower/loop_partition.h"

#include <gtest/gtest.h>

#include "tests/compiler/lower/pass_test_util.h"

namespace tessera {
namespace lower {
namespace {

using namespace testing;  // NOLINT

TEST(LoopPartitionTest, TailGuardGetsAFastPath) {
  ir::Var a = Buffer("A"), o("o"), i("i");
  ir::Expr idx = o * 4 + i;
  ir::Stmt s =
      Loop(o, 3, Loop(i, 4, ir::IfThenElse(ir::likely(idx < 10), ir::Store(a, 0.0f, idx))));
  EXPECT_EQ(ir::ToText(PartitionLoops(s)),
            "for o in [0, +3) {\n  if tessera.likely((((o*4) - 7) < 0)) {\n    for i in [0, +4) "
            "{\n      A[((o*4) + i)] = 0f\n    }\n  }\n  else {\n    for i in [0, +4) {\n      if "
            "tessera.likely((((o*4) + i) < 10)) {\n        A[((o*4) + i)] = 0f\n      }\n    }\n  "
            "}\n}\n");
}

TEST(LoopPartitionTest, GuardOnAnotherLoopIsLeftAlone) {
  ir::Var a = Buffer("A"), b = Buffer("B"), i("i");
  ir::Stmt s = Loop(i, 4, ir::IfThenElse(At(b, i) > 0.0f, ir::Store(a, 0.0f, i)));
  EXPECT_EQ(ir::ToText(PartitionLoops(s)),
            "for i in [0, +4) {\n  if (B[i] > 0f) {\n    A[i] = 0f\n  }\n}\n");
}

}  // namespace
}  // namespace lower
}  // namespace tessera
