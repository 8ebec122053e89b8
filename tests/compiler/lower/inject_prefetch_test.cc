// The inject_prefetch pass on hand-built loops (the region of the next iteration, spread over
// the inner loop, one loop of lines when they outnumber the steps, regions too big or GPUs left
// without), and Stage::prefetch through the whole lowering pipeline and its errors.
#include "compiler/lower/inject_prefetch.h"

#include <gtest/gtest.h>

#include "compiler/lower/lower.h"
#include "compiler/te/schedule.h"
#include "tests/compiler/lower/pass_test_util.h"
#include "tests/compiler/testing/user_error.h"

namespace tessera {
namespace lower {
namespace {

using namespace testing;  // NOLINT

ir::Expr Int(int64_t v) { return ir::IntImm(I32(), v); }

// for i in [0, 4): for k in [0, steps): B[i] += A[i * row + k * step]  (A prefetched at i).
ir::Stmt RowSums(const ir::Var& a, const ir::Var& b, int steps, int row, int step) {
  ir::Var i("i"), k("k");
  ir::Stmt update = ir::Store(b, At(b, i) + At(a, i * Int(row) + k * Int(step)), i);
  return Loop(i, 4, ir::AttrStmt(a, "prefetch_next", k, Loop(k, steps, update)));
}

TEST(InjectPrefetchTest, NextRowALinePerStep) {
  ir::Var a = Buffer("A"), b = Buffer("B");
  // Each row is 64 floats (256 bytes): 4 lines, and one more when unaligned; 64 steps.
  std::string text = ir::ToText(InjectPrefetch(RowSums(a, b, 64, 64, 1), /*emit=*/true));
  EXPECT_NE(text.find("if (k < 6) {"), std::string::npos) << text;
  EXPECT_NE(text.find("tessera.prefetch(A[(((i + 1)*64) + (k*16))])"), std::string::npos) << text;
  EXPECT_EQ(text.find("prefetch_next"), std::string::npos) << text;
}

TEST(InjectPrefetchTest, MoreLinesThanStepsLoopOverLines) {
  ir::Var a = Buffer("A"), b = Buffer("B");
  // 4 steps 256 floats apart: a span of 769 floats, 50 lines, 13 a step.
  std::string text = ir::ToText(InjectPrefetch(RowSums(a, b, 4, 1024, 256), /*emit=*/true));
  EXPECT_NE(text.find("for prefetch_line in [0, +13)"), std::string::npos) << text;
  EXPECT_NE(text.find("if (((k*13) + prefetch_line) < 50)"), std::string::npos) << text;
}

// An inner loop's prefetches do not widen the outer loop's region.
TEST(InjectPrefetchTest, NestedPrefetchesKeepTheirRegions) {
  ir::Var a = Buffer("A"), b = Buffer("B"), i("i"), j("j"), k("k");
  ir::Stmt update = ir::Store(b, At(b, i) + At(a, i * Int(128) + j * Int(64) + k), i);
  ir::Stmt inner = Loop(j, 2, ir::AttrStmt(a, "prefetch_next", k, Loop(k, 64, update)));
  std::string text = ir::ToText(
      InjectPrefetch(Loop(i, 4, ir::AttrStmt(a, "prefetch_next", k, inner)), /*emit=*/true));
  EXPECT_NE(text.find("< 6)"), std::string::npos) << text;   // j's next 64 floats
  EXPECT_NE(text.find("< 10)"), std::string::npos) << text;  // i's next 128 floats
}

TEST(InjectPrefetchTest, HugeRegionsAndGPUsGetNone) {
  ir::Var a = Buffer("A"), b = Buffer("B");
  // 100 steps 1000 floats apart: a region of 400 KB.
  std::string huge = ir::ToText(InjectPrefetch(RowSums(a, b, 100, 100000, 1000), true));
  EXPECT_EQ(huge.find("prefetch"), std::string::npos) << huge;
  std::string gpu = ir::ToText(InjectPrefetch(RowSums(a, b, 64, 64, 1), /*emit=*/false));
  EXPECT_EQ(gpu.find("prefetch"), std::string::npos) << gpu;
  EXPECT_NE(gpu.find("B[i] = (B[i] + A[((i*64) + k)])"), std::string::npos) << gpu;
}

struct RowSum {
  te::Tensor a, b, unread;
  ir::IterVar k;
  RowSum() {
    a = te::placeholder({8, 256}, ir::DataType::Float(32), "A");
    unread = te::placeholder({8}, ir::DataType::Float(32), "U");
    k = te::reduce_axis(256, "k");
    b = te::compute(
        {8}, [&](ir::Var i) { return te::sum(a(i, k), {k}); }, "B");
  }
};

TEST(InjectPrefetchTest, StagePrefetchThroughTheLowering) {
  RowSum r;
  te::Schedule s = te::create_schedule({r.b});
  auto [ko, ki] = s[r.b].split(r.k, 16);
  s[r.b].prefetch(r.a, r.b->op.as<te::ComputeOpNode>()->axis[0], ko);
  std::string text = ir::ToText(Lower(s, {r.a, r.b}, "row_sum"));
  // The next row (1 KB: 18 lines), a line per outer step of the 16 (two loops of lines).
  EXPECT_NE(text.find("tessera.prefetch(A["), std::string::npos) << text;
  EXPECT_NE(text.find("< 18"), std::string::npos) << text;
}

TEST(InjectPrefetchTest, StagePrefetchErrors) {
  RowSum r;
  te::Schedule s = te::create_schedule({r.b});
  te::Stage stage = s[r.b];
  ir::IterVar i = r.b->op.as<te::ComputeOpNode>()->axis[0];
  EXPECT_EQ(tessera::testing::UserErrorOf([&] { stage.prefetch(r.unread, i, r.k); }),
            "prefetch on stage 'B': it does not read tensor 'U'");
  EXPECT_EQ(tessera::testing::UserErrorOf([&] { stage.prefetch(r.a, r.k, i); }),
            "prefetch on stage 'B': loop 'B.i' is not inside loop 'k'");
  EXPECT_EQ(tessera::testing::UserErrorOf(
                [&] { stage.prefetch(r.a, te::reduce_axis(4, "elsewhere"), r.k); }),
            "prefetch on stage 'B': loop 'elsewhere' is neither a loop of this stage nor one it "
            "is computed inside");
  stage.prefetch(r.a, i, r.k);
  stage.reorder({r.k, i});
  EXPECT_EQ(tessera::testing::UserErrorOf([&] {
              Lower(s, {r.a, r.b}, "row_sum");
            }),
            "prefetch on stage 'B': loop 'k' is no longer inside loop 'B.i' (reordered after "
            "prefetch)");
}

}  // namespace
}  // namespace lower
}  // namespace tessera
