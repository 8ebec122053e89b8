#include "compiler/lower/lower.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>

#include "compiler/ir/printer.h"
#include "compiler/support/error.h"

namespace tessera {
namespace {

using namespace te;  // NOLINT

struct Matmul {
  Tensor A, B, C;
  IterVar k;
  Matmul(int n, int m, int kk) {
    A = placeholder({n, kk}, DataType::Float(32), "A");
    B = placeholder({kk, m}, DataType::Float(32), "B");
    k = reduce_axis(kk, "k");
    C = compute(
        {n, m}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
  }
};

std::string Text(const ir::PrimFunc& f) { return ir::ToText(f); }

TEST(LowerTest, DivisibleSplitHasNoGuard) {
  Matmul mm(64, 64, 32);
  Schedule s = create_schedule({mm.C});
  auto [io, ii] = s[mm.C].split(mm.C.axis(0), 16);
  ir::PrimFunc f = lower::Lower(s, {mm.A, mm.B, mm.C}, "mm");
  std::string text = Text(f);
  EXPECT_EQ(text.find("if "), std::string::npos) << text;
  EXPECT_NE(text.find("for C.i.inner in [0, +16)"), std::string::npos) << text;
}

TEST(LowerTest, NonDivisibleSplitKeepsGuard) {
  Matmul mm(30, 16, 8);
  Schedule s = create_schedule({mm.C});
  s[mm.C].split(mm.C.axis(0), 8);
  std::string text = Text(lower::Lower(s, {mm.A, mm.B, mm.C}, "mm"));
  EXPECT_NE(text.find("if tessera.likely("), std::string::npos) << text;
}

TEST(LowerTest, PipelineDumpsEveryPass) {
  Matmul mm(8, 8, 8);
  Schedule s = create_schedule({mm.C});
  std::vector<std::string> seen;
  lower::LowerOptions opt;
  opt.dump_ir = [&](const std::string& pass, const ir::PrimFunc&) { seen.push_back(pass); };
  lower::Lower(s, {mm.A, mm.B, mm.C}, "mm", opt);
  EXPECT_EQ(seen, lower::LoweringPasses());
}

TEST(LowerTest, PackedApiSignature) {
  Matmul mm(8, 8, 8);
  Schedule s = create_schedule({mm.C});
  ir::PrimFunc f = lower::Lower(s, {mm.A, mm.B, mm.C}, "mm");
  ASSERT_EQ(f->params.size(), 6u);
  EXPECT_EQ(f->params[2].dtype(), ir::DataType::Int(32));
  std::string text = Text(f);
  EXPECT_NE(text.find("mm: expected 3 arguments (A, B, C)"), std::string::npos);
  EXPECT_NE(text.find("mm: argument 1 ('B') must have shape [8, 8]"), std::string::npos);
}

TEST(LowerTest, BadArgumentListsAreUserErrors) {
  Matmul mm(8, 8, 8);
  Schedule s = create_schedule({mm.C});
  try {
    lower::Lower(s, {mm.A, mm.C}, "mm");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("tensor 'B' is read but is neither in the argument list"),
              std::string::npos)
        << e.what();
  }
  try {
    lower::Lower(s, {mm.A, mm.B}, "mm");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("output 'C' is not in the argument list"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(lower::Lower(s, {mm.A, mm.A, mm.B, mm.C}, "mm"), UserError);
  EXPECT_THROW(lower::Lower(s, {mm.A, mm.B, mm.C}, "bad name"), UserError);
}

TEST(LowerTest, PrintsComputeAtNest) {
  Matmul mm(16, 16, 16);
  Tensor D = compute(
      {16, 16}, [&](Var i, Var j) { return mm.C(i, j) + 1.0f; }, "D");
  Schedule s = create_schedule({D});
  auto [io, ii] = s[D].split(D.op().as<ComputeOpNode>()->axis[0], 4);
  s[mm.C].compute_at(s[D], io);
  s[mm.C].vectorize(s[mm.C].axis(1));
  ir::PrimFunc f = lower::Lower(s, {mm.A, mm.B, D}, "f");
  std::string text = Text(f);
  if (getenv("DUMP")) std::cerr << text;
  EXPECT_NE(text.find("allocate C: float32[64], stack"), std::string::npos) << text;
  EXPECT_NE(text.find("ramp("), std::string::npos) << text;
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

TEST(LowerTest, VectorizedDivModOfRampBecomeBroadcastAndRamp) {
  Tensor B = placeholder({64, 64}, DataType::Float(32), "B");
  Tensor P = compute(
      {2, 64, 32}, [&](Var p, Var k, Var c) { return B(k, p * 32 + c); }, "P");
  Tensor C = compute(
      {64, 64}, [&](Var k, Var j) { return P(j / 32, k, j % 32) * 2.0f; }, "C");
  Schedule s = create_schedule({C});
  auto [jo, ji] = s[C].split(C.axis(1), 32);
  s[C].vectorize(ji);
  s[P].vectorize(P.axis(2));
  std::string text = Text(lower::Lower(s, {B, C}, "f"));
  EXPECT_EQ(text.find("floordiv(ramp"), std::string::npos) << text;
  EXPECT_EQ(text.find("floormod(ramp"), std::string::npos) << text;
  EXPECT_NE(text.find("P[ramp("), std::string::npos) << text;
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

TEST(LowerTest, VectorizedTailIsPartitioned) {
  Tensor A = placeholder({30}, DataType::Float(32), "A");
  Tensor B = compute(
      {30}, [&](Var i) { return A(i) * 2.0f; }, "B");
  Schedule s = create_schedule({B});
  auto [io, ii] = s[B].split(B.axis(0), 8);
  s[B].vectorize(ii);
  std::string text = Text(lower::Lower(s, {A, B}, "f"));
  // Full tiles store vectors without a guard; the last tile keeps its guard in a scalar loop.
  EXPECT_NE(text.find("B[ramp((B.i.outer*8), 1, 8)] = "), std::string::npos) << text;
  EXPECT_NE(text.find("for B.i.inner in [0, +8) {"), std::string::npos) << text;
  EXPECT_NE(text.find("if tessera.likely((((B.i.outer*8) + B.i.inner) < 30))"), std::string::npos)
      << text;
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

TEST(LowerTest, StorageAlignPadsTheRowStride) {
  Tensor A = placeholder({8, 10}, DataType::Float(32), "A");
  Tensor B = compute(
      {8, 10}, [&](Var i, Var j) { return A(i, j) + 1.0f; }, "B");
  Tensor C = compute(
      {8, 10}, [&](Var i, Var j) { return B(i, j) * 2.0f; }, "C");
  Schedule s = create_schedule({C});
  s[B].storage_align(B.axis(0), 16, 1);  // row stride 10 -> 17
  std::string text = Text(lower::Lower(s, {A, C}, "f"));
  EXPECT_NE(text.find("allocate B: float32[136], stack"), std::string::npos) << text;
  EXPECT_NE(text.find("B[((B.i*17) + B.j)]"), std::string::npos) << text;
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

TEST(LowerTest, TensorsBeyondInt32IndexingAreUserErrors) {
  Tensor A = placeholder({65536, 65536}, DataType::Float(32), "A");
  Tensor B = compute(
      {65536, 65536}, [&](Var i, Var j) { return A(i, j); }, "B");
  Schedule s = create_schedule({B});
  try {
    lower::Lower(s, {A, B}, "big");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("big: argument 'A' has 4294967296 elements"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

using namespace te;  // NOLINT

// A vectorize that runs as a scalar loop (here: a guarded read whose guard depends on the lane)
// says so when asked (verbose or dump_ir), and stays quiet otherwise.
TEST(LowerTest, VectorizeFallingBackToScalarSaysSoWhenVerbose) {
  Tensor A = placeholder({8}, DataType::Float(32), "A");
  Tensor B = compute(
      {8}, [&](Var i) { return if_then_else(i > 2, A(i), 0.0f); }, "B");
  Schedule s = create_schedule({B});
  s[B].vectorize(B.axis(0));
  lower::LowerOptions options;
  ::testing::internal::CaptureStderr();
  lower::Lower(s, {A, B}, "f", options);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  options.verbose = true;
  ::testing::internal::CaptureStderr();
  lower::Lower(s, {A, B}, "f", options);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "tessera: note: f: loop 'B.i' runs as a scalar loop, not vectorized: its body has a "
            "guarded read (if_then_else) whose condition depends on the lane\n");
}

}  // namespace
}  // namespace tessera
