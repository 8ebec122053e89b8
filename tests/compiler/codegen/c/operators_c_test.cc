// Operators through the C backend against the reference evaluator: multi-stage graphs
// (softmax), pooling with padding, depthwise and batched computations, layout changes, and
// storage_align / cache_read stages.
#include <gtest/gtest.h>

#include "compiler/te/schedule.h"
#include "tests/compiler/testing/reference_check.h"

namespace tessera {
namespace {

using namespace te;  // NOLINT
const DataType kF32 = DataType::Float(32);

TEST(OperatorsCTest, SoftmaxWithInlinedExp) {
  const int n = 5, m = 19;
  Tensor X = placeholder({n, m}, kF32, "X");
  IterVar k1 = reduce_axis(m, "k1"), k2 = reduce_axis(m, "k2");
  Tensor mx = compute(
      {n}, [&](Var i) { return max(X(i, k1), {k1}); }, "mx");
  Tensor e = compute(
      {n, m}, [&](Var i, Var j) { return exp(X(i, j) - mx(i)); }, "e");
  Tensor den = compute(
      {n}, [&](Var i) { return sum(e(i, k2), {k2}); }, "den");
  Tensor Y = compute(
      {n, m}, [&](Var i, Var j) { return e(i, j) / den(i); }, "Y");
  Schedule s = create_schedule({Y});
  s[e].compute_inline();
  auto [jo, ji] = s[Y].split(Y.axis(1), 8);
  s[Y].vectorize(ji);
  s[Y].parallel(Y.axis(0));
  s[mx].compute_at(s[Y], Y.axis(0));
  s[den].compute_at(s[Y], Y.axis(0));
  EXPECT_EQ(testing::CheckAgainstReference(s, {X, Y}, "softmax", 11), "");
}

TEST(OperatorsCTest, MaxAndAvgPoolWithPadding) {
  const int c = 3, h = 9, w = 7, kh = 3, kw = 3, stride = 2, pad = 1;
  const int oh = (h + 2 * pad - kh) / stride + 1, ow = (w + 2 * pad - kw) / stride + 1;
  Tensor X = placeholder({c, h, w}, kF32, "X");
  IterVar ry = reduce_axis(kh, "ry"), rx = reduce_axis(kw, "rx");
  IterVar sy = reduce_axis(kh, "sy"), sx = reduce_axis(kw, "sx");
  auto in = [&](Expr y, Expr x) { return y >= 0 && y < h && x >= 0 && x < w; };
  Tensor MP = compute(
      {c, oh, ow},
      [&](Var ch, Var y, Var x) {
        Expr iy = y * stride + ry - pad, ix = x * stride + rx - pad;
        return max(if_then_else(in(iy, ix), X(ch, iy, ix), -3.0e38f), {ry, rx});
      },
      "maxpool");
  Tensor S = compute(
      {c, oh, ow},
      [&](Var ch, Var y, Var x) {
        Expr iy = y * stride + sy - pad, ix = x * stride + sx - pad;
        return sum(if_then_else(in(iy, ix), X(ch, iy, ix), 0.0f), {sy, sx});
      },
      "sum");
  Tensor AP = compute(
      {c, oh, ow}, [&](Var ch, Var y, Var x) { return S(ch, y, x) / float(kh * kw); }, "avgpool");
  Schedule s = create_schedule({MP, AP});
  s[MP].vectorize(MP.axis(2));
  s[S].compute_at(s[AP], AP.axis(1));
  s[AP].parallel(AP.axis(0));
  EXPECT_EQ(testing::CheckAgainstReference(s, {X, MP, AP}, "pool", 12), "");
}

TEST(OperatorsCTest, DepthwiseConvWithCacheReadAndStorageAlign) {
  const int c = 4, h = 10, w = 11, k = 3;
  Tensor X = placeholder({c, h, w}, kF32, "X");
  Tensor W = placeholder({c, k, k}, kF32, "W");
  IterVar ry = reduce_axis(k, "ry"), rx = reduce_axis(k, "rx");
  Tensor Y = compute(
      {c, h - k + 1, w - k + 1},
      [&](Var ch, Var y, Var x) {
        return sum(X(ch, y + ry, x + rx) * W(ch, ry, rx), {ry, rx});
      },
      "Y");
  Schedule s = create_schedule({Y});
  Tensor XL = s.cache_read(X, "local", {Y});
  auto [yo, yi] = s[Y].split(Y.axis(1), 4);
  s[XL].compute_at(s[Y], yo);
  s[XL].storage_align(s[XL].axis(1), 16, 3);
  s[Y].vectorize(Y.axis(2));
  EXPECT_EQ(testing::CheckAgainstReference(s, {X, W, Y}, "depthwise", 13), "");
}

TEST(OperatorsCTest, BatchedMatmulTransposeReshape) {
  const int b = 3, n = 6, m = 10, l = 7;
  Tensor A = placeholder({b, n, l}, kF32, "A");
  Tensor B = placeholder({b, m, l}, kF32, "B");
  Tensor BT = compute(
      {b, l, m}, [&](Var z, Var i, Var j) { return B(z, j, i); }, "BT");
  IterVar k = reduce_axis(l, "k");
  Tensor C = compute(
      {b, n, m}, [&](Var z, Var i, Var j) { return sum(A(z, i, k) * BT(z, k, j), {k}); }, "C");
  Tensor R = compute(
      {b * n * m}, [&](Var f) { return C(f / (n * m), (f / m) % n, f % m); }, "R");
  Schedule s = create_schedule({R});
  auto [zi, ii] = std::make_pair(C.axis(0), C.axis(1));
  s[C].reorder({zi, ii, k, C.axis(2)});
  s[C].vectorize(C.axis(2));
  s[BT].compute_at(s[C], zi);
  auto [fo, fi] = s[R].split(R.axis(0), 16);
  s[R].parallel(fo);
  s[R].vectorize(fi);
  EXPECT_EQ(testing::CheckAgainstReference(s, {A, B, R}, "bmm", 14), "");
}

TEST(OperatorsCTest, ReductionsAlongAxesAndIntegerMath) {
  Tensor X = placeholder({6, 5, 4}, DataType::Int(32), "X");
  IterVar r0 = reduce_axis(6, "r0"), r2 = reduce_axis(4, "r2");
  Tensor S0 = compute(
      {5, 4}, [&](Var j, Var l) { return sum(X(r0, j, l), {r0}); }, "S0");
  Tensor M2 = compute(
      {6, 5}, [&](Var i, Var j) { return min(X(i, j, r2) * 3 - (X(i, j, r2) / 2), {r2}); }, "M2");
  Schedule s = create_schedule({S0, M2});
  s[S0].reorder({r0, S0.axis(0), S0.axis(1)});
  s[S0].vectorize(S0.axis(1));
  s[M2].unroll(r2);
  EXPECT_EQ(testing::CheckAgainstReference(s, {X, S0, M2}, "reduce", 15), "");
}

TEST(OperatorsCTest, LargeIntermediateUsesWorkspace) {
  Tensor A = placeholder({300, 40}, kF32, "A");
  Tensor B = compute(
      {300, 40}, [&](Var i, Var j) { return A(i, j) * 2.0f; }, "B");  // 48 KB
  Tensor C = compute(
      {300, 40}, [&](Var i, Var j) { return B(i, j) + B(299 - i, j); }, "C");
  Schedule s = create_schedule({C});
  EXPECT_EQ(testing::CheckAgainstReference(s, {A, C}, "workspace", 16), "");
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

TEST(OperatorsCTest, RfactorSumVectorizedOverTheFactoredAxis) {
  const int n = 5, len = 37;
  Tensor A = placeholder({n, len}, kF32, "A");
  IterVar k = reduce_axis(len, "k");
  Tensor S = compute(
      {n}, [&](Var i) { return sum(A(i, k), {k}); }, "S");
  Schedule s = create_schedule({S});
  auto [ko, ki] = s[S].split(k, 8);
  Tensor SF = s.rfactor(S, ki, 1);
  EXPECT_EQ(SF.ndim(), 2u);
  s[SF].vectorize(s[SF].axis(1));
  s[SF].parallel(s[SF].axis(0));
  s[S].vectorize(S.axis(0));
  EXPECT_EQ(testing::CheckAgainstReference(s, {A, S}, "rfactor_sum", 17), "");
}

TEST(OperatorsCTest, RfactorOfAnOuterLoopAndMax) {
  Tensor A = placeholder({3, 20, 6}, kF32, "A");
  IterVar r1 = reduce_axis(20, "r1"), r2 = reduce_axis(6, "r2");
  Tensor M = compute(
      {3},
      [&](Var i) {
        return max(A(i, r1, r2), {r1, r2});
      },
      "M");
  Schedule s = create_schedule({M});
  auto [ro, ri] = s[M].split_nparts(r1, 3);
  Tensor MF = s.rfactor(M, ro);
  s[MF].compute_at(s[M], M.axis(0));
  EXPECT_EQ(testing::CheckAgainstReference(s, {A, M}, "rfactor_max", 18), "");
}

}  // namespace
}  // namespace tessera
