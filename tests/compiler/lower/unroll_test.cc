// The unroll pass on hand-built loops: explicit unrolling, the auto_unroll_max_step pragma and
// its limit, and loops too big to unroll.
#include "compiler/lower/unroll.h"

#include <gtest/gtest.h>

#include "tests/compiler/lower/pass_test_util.h"

namespace tessera {
namespace lower {
namespace {

using namespace testing;  // NOLINT

TEST(UnrollTest, UnrolledLoopBecomesCopies) {
  ir::Var a = Buffer("A"), i("i");
  ir::Stmt s = Loop(i, 3, ir::Store(a, At(a, i) + 1.0f, i), ir::ForKind::kUnrolled);
  EXPECT_EQ(ir::ToText(UnrollLoops(s)),
            "A[0] = (A[0] + 1f)\nA[1] = (A[1] + 1f)\nA[2] = (A[2] + 1f)\n");
}

TEST(UnrollTest, PragmaUnrollsSmallSerialNestsOnly) {
  ir::Var a = Buffer("A"), i("i"), j("j"), k("k");
  ir::Stmt small = Loop(j, 2, ir::Store(a, 0.0f, i * 2 + j));
  ir::Stmt big = Loop(k, 100, ir::Store(a, 1.0f, k));
  ir::Stmt s = ir::AttrStmt(ir::ObjectRef(), "pragma_auto_unroll_max_step", ir::IntImm(I32(), 4),
                            Loop(i, 2, ir::SeqStmt({small, big})));
  EXPECT_EQ(ir::ToText(UnrollLoops(s)),
            "for i in [0, +2) {\n  A[((i*2) + 0)] = 0f\n  A[((i*2) + 1)] = 0f\n  for k in [0, "
            "+100) {\n    A[k] = 1f\n  }\n}\n");
}

TEST(UnrollTest, TooManyCopiesStaySerial) {
  ir::Var a = Buffer("A"), i("i");
  ir::Stmt s = Loop(i, 5000, ir::Store(a, 0.0f, i), ir::ForKind::kUnrolled);
  EXPECT_EQ(ir::ToText(UnrollLoops(s)), "for i in [0, +5000) {\n  A[i] = 0f\n}\n");
}

}  // namespace
}  // namespace lower
}  // namespace tessera
