#include "tuner/cost_model/loop_nest_features.h"

#include <gtest/gtest.h>

#include <cmath>

#include "compiler/ir/op.h"

namespace tessera {
namespace tuner {
namespace {

using ir::DataType;
using ir::Expr;
using ir::ForKind;
using ir::Var;

constexpr int kPerLevel = 6;
constexpr int kPerBuffer = 2 + 2 * kFeatureLoopLevels;
constexpr int kBuffersAt = kFeatureLoopLevels * kPerLevel;

float L(double v) { return static_cast<float>(std::log2(1.0 + v)); }

// C[i*n+j] += A[i*n+k] * B[k*n+j] with loops in the order `order` (outermost first) of "ijk".
ir::Stmt Matmul(int n, const std::string& order, ForKind innermost_kind = ForKind::kSerial) {
  Var i("i"), j("j"), k("k");
  Var a("A", DataType::Handle()), b("B", DataType::Handle()), c("C", DataType::Handle());
  DataType f32 = DataType::Float(32);
  Expr c_index = i * n + j;
  ir::Stmt body = ir::Store(
      c, ir::Load(f32, c, c_index) + ir::Load(f32, a, i * n + k) * ir::Load(f32, b, k * n + j),
      c_index);
  for (int pos = 2; pos >= 0; --pos) {
    Var v = order[pos] == 'i' ? i : (order[pos] == 'j' ? j : k);
    body = ir::For(v, 0, n, pos == 2 ? innermost_kind : ForKind::kSerial, body);
  }
  return body;
}

TEST(LoopNestFeaturesTest, FixedLengthWithLevelsFromTheInside) {
  std::vector<float> f = LoopNestFeatures(Matmul(64, "ijk"));
  ASSERT_EQ(static_cast<int>(f.size()), LoopNestFeatureCount());
  for (int level = 0; level < 3; ++level) {
    EXPECT_FLOAT_EQ(f[level * kPerLevel], L(64)) << level;
    EXPECT_FLOAT_EQ(f[level * kPerLevel + 1], 1.f) << level;  // serial
    EXPECT_FLOAT_EQ(f[level * kPerLevel + 5], L(std::pow(64.0, level + 1))) << level;
  }
  EXPECT_FLOAT_EQ(f[3 * kPerLevel], 0.f);  // no fourth level
  const float* totals = f.data() + kBuffersAt + kFeatureBuffers * kPerBuffer;
  EXPECT_FLOAT_EQ(totals[0], L(64.0 * 64 * 64));
  EXPECT_FLOAT_EQ(totals[1], L(2.0 * 64 * 64 * 64));  // one add, one multiply
  EXPECT_FLOAT_EQ(totals[2], 1.f);
}

TEST(LoopNestFeaturesTest, StridesAndReuseFollowTheLoopOrder) {
  std::vector<float> ijk = LoopNestFeatures(Matmul(64, "ijk"));
  // Buffers: C (stored), A, B. Innermost loop k: C is reused, A is contiguous, B strides by n.
  const float* c = ijk.data() + kBuffersAt;
  const float* a = c + kPerBuffer;
  const float* b = a + kPerBuffer;
  EXPECT_FLOAT_EQ(c[0], 2.f);  // 4-byte elements
  EXPECT_FLOAT_EQ(c[1], 0.f);
  EXPECT_FLOAT_EQ(a[1], L(1));
  EXPECT_FLOAT_EQ(b[1], L(64));
  EXPECT_FLOAT_EQ(c[2], L(4));                // level 0: one element of C
  EXPECT_FLOAT_EQ(c[3], L(64));               // reused across k
  EXPECT_FLOAT_EQ(a[2], L(4 * 64));           // a row of A
  EXPECT_FLOAT_EQ(b[2 + 2], L(4 * 64 * 64));  // level 1 (j, k): all of B

  std::vector<float> ikj = LoopNestFeatures(Matmul(64, "ikj"));
  const float* b2 = ikj.data() + kBuffersAt + 2 * kPerBuffer;
  EXPECT_FLOAT_EQ(b2[1], L(1));  // j innermost: B is contiguous
  EXPECT_NE(ijk, ikj);
}

TEST(LoopNestFeaturesTest, AnnotationsAndVectorIndicesAreSeen) {
  std::vector<float> f = LoopNestFeatures(Matmul(16, "ikj", ForKind::kVectorized));
  EXPECT_FLOAT_EQ(f[1], 0.f);
  EXPECT_FLOAT_EQ(f[3], 1.f);  // vectorized

  Var i("i"), out("O", DataType::Handle()), in("I", DataType::Handle());
  DataType f32x8 = DataType::Float(32, 8);
  ir::Stmt vec =
      ir::For(i, 0, 32, ForKind::kParallel,
              ir::Store(out, ir::Load(f32x8, in, ir::Ramp(i * 8, 1, 8)) * ir::Broadcast(2.f, 8),
                        ir::Ramp(i * 8, 1, 8)));
  std::vector<float> g = LoopNestFeatures(vec);
  EXPECT_FLOAT_EQ(g[2], 1.f);  // parallel
  const float* o = g.data() + kBuffersAt;
  EXPECT_FLOAT_EQ(o[1], L(1));           // lanes are contiguous
  EXPECT_FLOAT_EQ(o[2], L(4 * 8 * 32));  // 8 lanes per iteration, 32 iterations
  const float* totals = g.data() + kBuffersAt + kFeatureBuffers * kPerBuffer;
  EXPECT_FLOAT_EQ(totals[1], L(8 * 32));  // one 8-lane multiply per iteration
}

TEST(LoopNestFeaturesTest, TheMostExecutedStoreIsTheMainNest) {
  Var i("i"), j("j"), x("X", DataType::Handle()), y("Y", DataType::Handle());
  ir::Stmt init = ir::For(i, 0, 4, ForKind::kSerial, ir::Store(x, 0.f, i));
  ir::Stmt big = ir::For(
      i, 0, 128, ForKind::kSerial,
      ir::For(j, 0, 32, ForKind::kUnrolled, ir::Store(y, ir::Load(DataType::Float(32), x, j), i)));
  std::vector<float> f = LoopNestFeatures(ir::SeqStmt({init, big}));
  EXPECT_FLOAT_EQ(f[0], L(32));
  EXPECT_FLOAT_EQ(f[4], 1.f);  // unrolled innermost
  EXPECT_FLOAT_EQ(f[kPerLevel], L(128));
  const float* totals = f.data() + kBuffersAt + kFeatureBuffers * kPerBuffer;
  EXPECT_FLOAT_EQ(totals[0], L(4 + 128 * 32));
  EXPECT_FLOAT_EQ(totals[2], 2.f);
  std::vector<float> empty = LoopNestFeatures(ir::NoOp());
  EXPECT_EQ(static_cast<int>(empty.size()), LoopNestFeatureCount());
}

}  // namespace
}  // namespace tuner
}  // namespace tessera
