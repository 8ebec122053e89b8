// The vectorize pass on hand-built loops: a contiguous loop becomes ramps and broadcasts; a body
// it cannot vectorize stays a serial loop and says why.
#include "compiler/lower/vectorize.h"

#include <gtest/gtest.h>

#include "tests/compiler/lower/pass_test_util.h"

namespace tessera {
namespace lower {
namespace {

using namespace testing;  // NOLINT

TEST(VectorizeTest, ContiguousLoopBecomesVectorCode) {
  ir::Var a = Buffer("A"), b = Buffer("B"), i("i");
  ir::Stmt s = Loop(i, 4, ir::Store(b, At(a, i) * 2.0f + 1.0f, i), ir::ForKind::kVectorized);
  EXPECT_EQ(ir::ToText(VectorizeLoops(s)),
            "B[ramp(0, 1, 4)] = ((A[ramp(0, 1, 4)]:float32x4*x4(2f)) + x4(1f))\n");
}

TEST(VectorizeTest, StridedAndInvariantOperands) {
  ir::Var a = Buffer("A"), b = Buffer("B"), i("i"), j("j");
  ir::Stmt s = Loop(
      j, 2, Loop(i, 4, ir::Store(b, At(a, i * 3) + At(a, j), j * 4 + i), ir::ForKind::kVectorized));
  EXPECT_EQ(
      ir::ToText(VectorizeLoops(s)),
      "for j in [0, +2) {\n  B[ramp((j*4), 1, 4)] = (A[ramp(0, 3, 4)]:float32x4 + x4(A[j]))\n}\n");
}

// Below 16 lanes a width that is not a power of two stays one vector, which LLVM widens within
// one AVX-512 register (a convolution block of 12 channels ran 2.2x slower as three float32x4).
TEST(VectorizeTest, ANarrowWidthThatIsNotAPowerOfTwoStaysOneVector) {
  ir::Var a = Buffer("A"), b = Buffer("B"), i("i"), j("j");
  ir::Stmt s = Loop(
      j, 2,
      Loop(i, 12, ir::Store(b, At(a, j * 12 + i) + 1.0f, j * 12 + i), ir::ForKind::kVectorized));
  EXPECT_EQ(ir::ToText(VectorizeLoops(s)),
            "for j in [0, +2) {\n"
            "  B[ramp((j*12), 1, 12)] = (A[ramp((j*12), 1, 12)]:float32x12 + x12(1f))\n"
            "}\n");
}

// From 16 lanes on it runs as vectors of 16 and one for the rest: LLVM would widen 40 lanes to 64
// and build every load lane by lane.
TEST(VectorizeTest, AWideWidthThatIsNotAPowerOfTwoRunsInVectorsOfSixteen) {
  ir::Var a = Buffer("A"), b = Buffer("B"), i("i");
  ir::Stmt s = Loop(i, 40, ir::Store(b, At(a, i) + 1.0f, i), ir::ForKind::kVectorized);
  EXPECT_EQ(ir::ToText(VectorizeLoops(s)),
            "B[ramp(0, 1, 16)] = (A[ramp(0, 1, 16)]:float32x16 + x16(1f))\n"
            "B[ramp(16, 1, 16)] = (A[ramp(16, 1, 16)]:float32x16 + x16(1f))\n"
            "B[ramp(32, 1, 8)] = (A[ramp(32, 1, 8)]:float32x8 + x8(1f))\n");
  ir::Stmt odd = Loop(i, 17, ir::Store(b, At(a, i) + 1.0f, i), ir::ForKind::kVectorized);
  EXPECT_EQ(ir::ToText(VectorizeLoops(odd)),
            "B[ramp(0, 1, 16)] = (A[ramp(0, 1, 16)]:float32x16 + x16(1f))\n"
            "B[16] = (A[16] + 1f)\n");
}

TEST(VectorizeTest, AnOddWidthStaysOneVector) {
  ir::Var a = Buffer("A"), b = Buffer("B"), i("i");
  ir::Stmt s = Loop(i, 3, ir::Store(b, At(a, i), i), ir::ForKind::kVectorized);
  EXPECT_EQ(ir::ToText(VectorizeLoops(s)), "B[ramp(0, 1, 3)] = A[ramp(0, 1, 3)]:float32x3\n");
}

TEST(VectorizeTest, LaneDependentGuardFallsBackToASerialLoop) {
  ir::Var a = Buffer("A"), b = Buffer("B"), i("i");
  ir::Stmt s =
      Loop(i, 4, ir::IfThenElse(i < 3, ir::Store(b, At(a, i), i)), ir::ForKind::kVectorized);
  std::vector<std::string> notes;
  EXPECT_EQ(ir::ToText(VectorizeLoops(s, &notes)),
            "for i in [0, +4) {\n  if (i < 3) {\n    B[i] = A[i]\n  }\n}\n");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0],
            "loop 'i' runs as a scalar loop, not vectorized: its body has a guard that depends on "
            "the lane (an uneven split or a condition)");
}

TEST(VectorizeTest, ReductionStoreStaysSerial) {
  ir::Var a = Buffer("A"), b = Buffer("B"), i("i");
  ir::Stmt s = Loop(i, 4, ir::Store(b, At(b, 0) + At(a, i), 0), ir::ForKind::kVectorized);
  std::vector<std::string> notes;
  EXPECT_EQ(ir::ToText(VectorizeLoops(s, &notes)),
            "for i in [0, +4) {\n  B[0] = (B[0] + A[i])\n}\n");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0],
            "loop 'i' runs as a scalar loop, not vectorized: its body has a store whose address "
            "does not depend on the lane (a reduction)");
}

}  // namespace
}  // namespace lower
}  // namespace tessera
