#include "compiler/te/schedule.h"

#include <gtest/gtest.h>

#include "compiler/lower/lower.h"
#include "compiler/support/error.h"
#include "tests/compiler/testing/user_error.h"

namespace tessera {
namespace te {
namespace {

using ::tessera::testing::UserErrorOf;

struct Matmul {
  Tensor A, B, C, D;
  IterVar k;
  Matmul() {
    A = placeholder({16, 8}, DataType::Float(32), "A");
    B = placeholder({8, 16}, DataType::Float(32), "B");
    k = reduce_axis(8, "k");
    C = compute(
        {16, 16}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
    D = compute(
        {16, 16}, [&](Var i, Var j) { return C(i, j) * 2.0f; }, "D");
  }
};

TEST(ScheduleTest, StagesInProducerOrder) {
  Matmul m;
  Schedule s = create_schedule({m.D});
  ASSERT_EQ(s->stages.size(), 2u);
  EXPECT_EQ(s->stages[0].name(), "C");
  EXPECT_EQ(s->stages[1].name(), "D");
  EXPECT_TRUE(s[m.D]->is_output);
}

TEST(ScheduleTest, SplitFuseReorderTileChangeLeaves) {
  Matmul m;
  Schedule s = create_schedule({m.D});
  Stage c = s[m.C];
  auto [io, ii] = c.split(m.C.axis(0), 4);
  ASSERT_EQ(c->leaf_iter_vars.size(), 4u);
  EXPECT_TRUE(c->leaf_iter_vars[0].same_as(io));
  EXPECT_TRUE(c->leaf_iter_vars[1].same_as(ii));
  IterVar f = c.fuse(ii, m.C.axis(1));
  EXPECT_EQ(c->leaf_iter_vars.size(), 3u);
  c.reorder({m.k, f});
  EXPECT_TRUE(c->leaf_iter_vars[1].same_as(m.k));
  EXPECT_TRUE(c->leaf_iter_vars[2].same_as(f));
  auto [xo, yo, xi, yi] = s[m.D].tile(m.D.axis(0), m.D.axis(1), 4, 4);
  EXPECT_TRUE(s[m.D]->leaf_iter_vars[1].same_as(yo));
  EXPECT_TRUE(s[m.D]->leaf_iter_vars[2].same_as(xi));
}

TEST(ScheduleTest, MisuseIsAUserErrorNamingStageAndAxis) {
  Matmul m;
  Schedule s = create_schedule({m.D});
  Stage c = s[m.C];
  EXPECT_EQ(UserErrorOf([&] { c.vectorize(m.k); }),
            "vectorize on stage 'C': axis 'k' is a reduction axis");
  EXPECT_EQ(
      UserErrorOf([&] { c.parallel(m.k); }),
      "parallel on stage 'C': axis 'k' is a reduction axis (its iterations depend on each other)");
  IterVar fused = c.fuse(m.C.axis(0), m.C.axis(1));
  (void)fused;
  EXPECT_EQ(
      UserErrorOf([&] { c.split(m.C.axis(0), 4); }),
      "split on stage 'C': axis 'C.i' is no longer a loop (it was split or fused into other axes)");
  EXPECT_EQ(UserErrorOf([&] { c.split(m.D.axis(0), 4); }),
            "split on stage 'C': axis 'D.i' does not belong to this stage");
  EXPECT_EQ(UserErrorOf([&] { s[m.D].split(m.D.axis(0), 0); }),
            "split factor of axis 'D.i' in stage 'D' must be positive, got 0");
  EXPECT_EQ(UserErrorOf([&] { s[m.D].fuse(m.D.axis(1), m.D.axis(0)); }),
            "fuse on stage 'D': axis 'D.j' must be immediately outside axis 'D.i'");
  EXPECT_EQ(UserErrorOf([&] {
              s[m.D].reorder({m.D.axis(0), m.D.axis(0)});
            }),
            "reorder on stage 'D': axis 'D.i' is listed twice");
  EXPECT_EQ(UserErrorOf([&] { s[m.A]; }),
            "tensor 'A' is a placeholder (an input); it has no stage to schedule");
  EXPECT_EQ(UserErrorOf([&] { s[m.D].compute_inline(); }),
            "compute_inline of 'D': an output cannot be inlined");
  EXPECT_EQ(UserErrorOf([&] { c.compute_inline(); }),
            "compute_inline of 'C': a reduction cannot be inlined");
  EXPECT_EQ(UserErrorOf([&] { s[m.D].bind(m.D.axis(0), "threadIdx.w"); }),
            "bind on stage 'D': unknown thread tag 'threadIdx.w' (accepted: blockIdx.x/y/z, "
            "threadIdx.x/y/z, vthread)");
  EXPECT_EQ(UserErrorOf([&] { c.storage_align(m.k, 4, 1); }),
            "storage_align on stage 'C': axis 'k' is not a spatial axis of its operation");
}

TEST(ScheduleTest, ComputeAtIntoNonConsumerIsAUserError) {
  Tensor A = placeholder({8}, DataType::Float(32), "A");
  Tensor B = compute(
      {8}, [&](Var i) { return A(i) + 1.0f; }, "B");
  Tensor C = compute(
      {8}, [&](Var i) { return A(i) * 2.0f; }, "C");
  Tensor D = compute(
      {8}, [&](Var i) { return B(i) + C(i); }, "D");
  Schedule s = create_schedule({D});
  EXPECT_EQ(UserErrorOf([&] { s[B].compute_at(s[C], C.axis(0)); }),
            "compute_at of 'B': stage 'C' does not read 'B'");
  EXPECT_EQ(UserErrorOf([&] { s[B].compute_at(s[D], C.axis(0)); }),
            "compute_at on stage 'D': axis 'C.i' does not belong to this stage");
  EXPECT_EQ(UserErrorOf([&] { s[D].compute_at(s[B], B.axis(0)); }),
            "compute_at of 'D': an output stage must stay at the root");
}

TEST(ScheduleTest, LoweringRejectsComputeAtWithAnotherReader) {
  Tensor A = placeholder({8}, DataType::Float(32), "A");
  Tensor B = compute(
      {8}, [&](Var i) { return A(i) + 1.0f; }, "B");
  Tensor C = compute(
      {8}, [&](Var i) { return B(i) * 2.0f; }, "C");
  Tensor D = compute(
      {8}, [&](Var i) { return B(i) + C(i); }, "D");
  Schedule s = create_schedule({D});
  s[B].compute_at(s[C], C.axis(0));
  EXPECT_EQ(UserErrorOf([&] {
              lower::Lower(s, {A, D}, "f");
            }),
            "compute_at of 'B' into 'C': 'B' is also read by 'D', which runs outside that loop");
}

TEST(ScheduleTest, ComputeAtLoopSplitAwayLaterIsAUserError) {
  Tensor A = placeholder({8}, DataType::Float(32), "A");
  Tensor B = compute(
      {8}, [&](Var i) { return A(i) + 1.0f; }, "B");
  Tensor C = compute(
      {8}, [&](Var i) { return B(i) * 2.0f; }, "C");
  Schedule s = create_schedule({C});
  s[B].compute_at(s[C], C.axis(0));
  s[C].split(C.axis(0), 2);
  EXPECT_EQ(UserErrorOf([&] {
              lower::Lower(s, {A, C}, "f");
            }),
            "stage 'C' has no loop 'C.i' to attach to (it was split or fused after compute_at)");
}

TEST(ScheduleTest, CacheReadAndWriteInsertStages) {
  Matmul m;
  Schedule s = create_schedule({m.D});
  Tensor AA = s.cache_read(m.A, "local", {m.C});
  Tensor CL = s.cache_write(m.C, "local");
  ASSERT_EQ(s->stages.size(), 4u);
  EXPECT_EQ(s->stages[0].name(), "A.local");
  EXPECT_EQ(s->stages[1].name(), "C.local");
  EXPECT_EQ(s->stages[2].name(), "C");
  EXPECT_EQ(s[CL].name(), "C.local");
  EXPECT_EQ(s[m.C]->op->name, "C");
  EXPECT_EQ(UserErrorOf([&] { s.cache_read(m.B, "local", {m.D}); }),
            "cache_read: stage 'D' does not read 'B'");
  s[m.D].split(m.D.axis(0), 2);
  EXPECT_EQ(UserErrorOf([&] { s.cache_write(m.D, "local"); }),
            "cache_write of 'D' must come before other primitives on its stage");
}

TEST(ScheduleTest, RfactorMisuse) {
  Matmul m;
  Schedule s = create_schedule({m.D});
  EXPECT_EQ(UserErrorOf([&] { s.rfactor(m.D, m.D.axis(0)); }),
            "rfactor of 'D': it is not a reduction");
  EXPECT_EQ(UserErrorOf([&] { s.rfactor(m.C, m.C.axis(0)); }),
            "rfactor of 'C': the axis must be a reduction loop");
  EXPECT_EQ(UserErrorOf([&] { s.rfactor(m.C, m.k, 3); }),
            "rfactor of 'C': factor_axis 3 is out of range [0, 2]");
  s[m.C].split(m.C.axis(0), 4);
  EXPECT_EQ(UserErrorOf([&] { s.rfactor(m.C, m.k); }),
            "rfactor of 'C' must come before its spatial axes are split or fused");
}

TEST(ScheduleTest, RfactorAddsAFactoredStage) {
  Matmul m;
  Schedule s = create_schedule({m.D});
  auto [ko, ki] = s[m.C].split(m.k, 4);
  Tensor CF = s.rfactor(m.C, ki, 2);
  EXPECT_EQ(CF.ndim(), 3u);
  EXPECT_EQ(CF.name(), "C.rf");
  ASSERT_EQ(s->stages.size(), 3u);
  EXPECT_EQ(s->stages[0].name(), "C.rf");
  EXPECT_EQ(s[m.C]->leaf_iter_vars.size(), 3u);  // i, j and the reduction over the factored axis
}

TEST(ScheduleTest, UnknownStorageScopeIsRefused) {
  Matmul m;
  Schedule s = create_schedule({m.D});
  EXPECT_EQ(UserErrorOf([&] { s.cache_read(m.A, "lcoal", {m.C}); }),
            "cache_read of 'A': unknown storage scope 'lcoal' (accepted: global, local, shared)");
  EXPECT_EQ(UserErrorOf([&] { s.cache_write(m.C, ""); }),
            "cache_write of 'C': unknown storage scope '' (accepted: global, local, shared)");
  EXPECT_EQ(s->stages.size(), 2u);  // nothing was added
}

TEST(ScheduleTest, UnknownPragmaKeyIsRefused) {
  Matmul m;
  Schedule s = create_schedule({m.D});
  EXPECT_EQ(UserErrorOf([&] { s[m.D].pragma(m.D.axis(0), "auto_unrol_max_step", 16); }),
            "pragma on stage 'D': unknown key 'auto_unrol_max_step' (accepted: "
            "auto_unroll_max_step)");
  s[m.D].pragma(m.D.axis(0), "auto_unroll_max_step", 16);
}

TEST(ScheduleTest, StorageAlignOnAnOutputIsRefused) {
  Matmul m;
  Schedule s = create_schedule({m.D});
  EXPECT_EQ(UserErrorOf([&] { s[m.D].storage_align(m.D.axis(0), 4, 1); }),
            "storage_align on stage 'D': it is an output, whose layout is the caller's array "
            "(align intermediate stages)");
  s[m.C].storage_align(m.C.axis(0), 4, 1);
}

TEST(ScheduleTest, StagesKeepDistinctNames) {
  Matmul m;
  Schedule s = create_schedule({m.D});
  auto [ko, ki] = s[m.C].split(m.k, 4);
  Tensor CF = s.rfactor(m.C, ki);
  EXPECT_EQ(UserErrorOf([&] { s.rfactor(m.C, s[m.C]->leaf_iter_vars.back()); }),
            "rfactor of 'C': the schedule already has a stage named 'C.rf'");
  s.cache_read(m.A, "local", {CF});
  EXPECT_EQ(UserErrorOf([&] { s.cache_read(m.A, "local", {CF}); }),
            "cache_read of 'A': the schedule already has a stage named 'A.local'");
}

}  // namespace
}  // namespace te
}  // namespace tessera
