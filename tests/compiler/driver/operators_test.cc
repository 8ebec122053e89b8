// Every operator class of the issue, scheduled with the usual primitives, compiled through
// build() with the LLVM backend and compared with the reference evaluator.
#include <gtest/gtest.h>

#include "compiler/te/reference_evaluator.h"
#include "compiler/tessera.h"
#include "tests/compiler/driver/operator_check.h"

namespace tessera {
namespace {

using testing::ExpectMatchesReference;
const DataType kF32 = DataType::Float(32);

TEST(OperatorsTest, Elementwise) {
  te::Tensor a = te::placeholder({17, 33}, kF32, "A");
  te::Tensor b = te::placeholder({17, 33}, kF32, "B");
  te::Tensor c = te::compute(
      {17, 33}, [&](Var i, Var j) { return ir::exp(a(i, j)) * b(i, j) + ir::tanh(b(i, j)); }, "C");
  te::Schedule s = te::create_schedule({c});
  auto [jo, ji] = s[c].split(c.axis(1), 8);
  s[c].vectorize(ji);
  s[c].parallel(c.axis(0));
  ExpectMatchesReference(s, {a, b}, {c}, "elementwise");
}

TEST(OperatorsTest, BroadcastAndActivation) {
  te::Tensor a = te::placeholder({9, 20}, kF32, "A");
  te::Tensor bias = te::placeholder({20}, kF32, "bias");
  te::Tensor c = te::compute(
      {9, 20}, [&](Var i, Var j) { return ir::sigmoid(a(i, j) + bias(j)); }, "C");
  te::Schedule s = te::create_schedule({c});
  te::IterVar fused = s[c].fuse(c.axis(0), c.axis(1));
  auto [outer, inner] = s[c].split(fused, 16);
  s[c].vectorize(inner);
  s[c].parallel(outer);
  ExpectMatchesReference(s, {a, bias}, {c}, "broadcast");
}

TEST(OperatorsTest, MatmulWithCacheWriteAndTails) {
  const int n = 37, m = 29, l = 41;
  te::Tensor a = te::placeholder({n, l}, kF32, "A");
  te::Tensor b = te::placeholder({l, m}, kF32, "B");
  te::IterVar k = te::reduce_axis(l, "k");
  te::Tensor c = te::compute(
      {n, m}, [&](Var i, Var j) { return te::sum(a(i, k) * b(k, j), {k}); }, "C");
  te::Schedule s = te::create_schedule({c});
  te::Tensor cc = s.cache_write(c, "local");
  auto [io, jo, ii, ji] = s[c].tile(s[c].axis(0), s[c].axis(1), 4, 8);
  s[c].vectorize(ji);
  s[c].parallel(io);
  s[cc].compute_at(s[c], jo);
  te::Stage acc = s[cc];
  auto [ko, ki] = s[cc].split(acc.reduce_axis(0), 4);
  s[cc].reorder({ko, acc.axis(0), ki, acc.axis(1)});
  s[cc].vectorize(acc.axis(1));
  s[cc].unroll(ki);
  ExpectMatchesReference(s, {a, b}, {c}, "matmul");
}

TEST(OperatorsTest, BatchedMatmul) {
  te::Tensor a = te::placeholder({3, 16, 24}, kF32, "A");
  te::Tensor b = te::placeholder({3, 24, 20}, kF32, "B");
  te::IterVar k = te::reduce_axis(24, "k");
  te::Tensor c = te::compute(
      {3, 16, 20}, [&](Var bi, Var i, Var j) { return te::sum(a(bi, i, k) * b(bi, k, j), {k}); },
      "C");
  te::Schedule s = te::create_schedule({c});
  auto [jo, ji] = s[c].split(c.axis(2), 8);
  s[c].reorder({c.axis(0), c.axis(1), jo, s[c].reduce_axis(0), ji});
  s[c].vectorize(ji);
  s[c].parallel(s[c].fuse(c.axis(0), c.axis(1)));
  ExpectMatchesReference(s, {a, b}, {c}, "batch_matmul");
}

// NCHW convolution with padding through an inlined padded stage.
te::Tensor Conv2d(const te::Tensor& data, const te::Tensor& kernel, int stride, int pad,
                  int dilation, te::Tensor* padded_out) {
  auto ds = te::ReferenceEvaluator::ConstShape(data);
  auto ks = te::ReferenceEvaluator::ConstShape(kernel);
  const int batch = ds[0], in_c = ds[1], h = ds[2], w = ds[3];
  const int out_c = ks[0], kh = ks[2], kw = ks[3];
  te::Tensor padded = te::compute(
      {batch, in_c, h + 2 * pad, w + 2 * pad},
      [&](Var n, Var c, Var y, Var x) {
        Expr inside = y >= pad && y < h + pad && x >= pad && x < w + pad;
        return ir::if_then_else(inside, data(n, c, y - pad, x - pad), Expr(0.0f));
      },
      "padded");
  const int out_h = (h + 2 * pad - dilation * (kh - 1) - 1) / stride + 1;
  const int out_w = (w + 2 * pad - dilation * (kw - 1) - 1) / stride + 1;
  te::IterVar rc = te::reduce_axis(in_c, "rc"), ry = te::reduce_axis(kh, "ry"),
              rx = te::reduce_axis(kw, "rx");
  *padded_out = padded;
  return te::compute(
      {batch, out_c, out_h, out_w},
      [&](Var n, Var f, Var y, Var x) {
        return te::sum(
            padded(n, rc, y * stride + ry->var * dilation, x * stride + rx->var * dilation) *
                kernel(f, rc, ry, rx),
            {rc, ry, rx});
      },
      "conv2d");
}

TEST(OperatorsTest, Conv2dStridePaddingDilation) {
  te::Tensor data = te::placeholder({2, 3, 11, 13}, kF32, "data");
  te::Tensor kernel = te::placeholder({4, 3, 3, 3}, kF32, "kernel");
  te::Tensor padded;
  te::Tensor out = Conv2d(data, kernel, 2, 2, 2, &padded);
  te::Schedule s = te::create_schedule({out});
  s[padded].compute_inline();
  auto [xo, xi] = s[out].split(out.axis(3), 4);
  s[out].vectorize(xi);
  s[out].parallel(s[out].fuse(out.axis(0), out.axis(1)));
  ExpectMatchesReference(s, {data, kernel}, {out}, "conv2d");
}

TEST(OperatorsTest, Conv2dWithPaddedStageAtRoot) {
  te::Tensor data = te::placeholder({1, 2, 8, 8}, kF32, "data");
  te::Tensor kernel = te::placeholder({3, 2, 3, 3}, kF32, "kernel");
  te::Tensor padded;
  te::Tensor out = Conv2d(data, kernel, 1, 1, 1, &padded);
  te::Schedule s = te::create_schedule({out});
  s[out].parallel(out.axis(1));
  ExpectMatchesReference(s, {data, kernel}, {out}, "conv2d_root_pad");
}

TEST(OperatorsTest, DepthwiseConv2d) {
  te::Tensor data = te::placeholder({1, 4, 10, 10}, kF32, "data");
  te::Tensor kernel = te::placeholder({4, 1, 3, 3}, kF32, "kernel");
  te::Tensor padded = te::compute(
      {1, 4, 12, 12},
      [&](Var n, Var c, Var y, Var x) {
        Expr inside = y >= 1 && y < 11 && x >= 1 && x < 11;
        return ir::if_then_else(inside, data(n, c, y - 1, x - 1), Expr(0.0f));
      },
      "padded");
  te::IterVar ry = te::reduce_axis(3, "ry"), rx = te::reduce_axis(3, "rx");
  te::Tensor out = te::compute(
      {1, 4, 10, 10},
      [&](Var n, Var c, Var y, Var x) {
        return te::sum(padded(n, c, y + ry->var, x + rx->var) * kernel(c, 0, ry, rx), {ry, rx});
      },
      "depthwise");
  te::Schedule s = te::create_schedule({out});
  s[padded].compute_at(s[out], out.axis(1));
  auto [xo, xi] = s[out].split(out.axis(3), 4);
  s[out].vectorize(xi);
  s[out].parallel(out.axis(1));
  ExpectMatchesReference(s, {data, kernel}, {out}, "depthwise_conv2d");
}

TEST(OperatorsTest, MaxAndAveragePooling) {
  te::Tensor data = te::placeholder({1, 3, 9, 9}, kF32, "data");
  te::IterVar ry = te::reduce_axis(2, "ry"), rx = te::reduce_axis(2, "rx");
  te::Tensor max_pool = te::compute(
      {1, 3, 4, 4},
      [&](Var n, Var c, Var y, Var x) {
        return te::max(data(n, c, y * 2 + ry->var, x * 2 + rx->var), {ry, rx});
      },
      "max_pool");
  // 3x3 average with stride 2 and padding 1, padding counted as zeros.
  te::IterVar ay = te::reduce_axis(3, "ay"), ax = te::reduce_axis(3, "ax");
  te::Tensor padded = te::compute(
      {1, 3, 11, 11},
      [&](Var n, Var c, Var y, Var x) {
        Expr inside = y >= 1 && y < 10 && x >= 1 && x < 10;
        return ir::if_then_else(inside, data(n, c, y - 1, x - 1), Expr(0.0f));
      },
      "padded");
  te::Tensor sum_pool = te::compute(
      {1, 3, 5, 5},
      [&](Var n, Var c, Var y, Var x) {
        return te::sum(padded(n, c, y * 2 + ay->var, x * 2 + ax->var), {ay, ax});
      },
      "sum_pool");
  te::Tensor avg_pool = te::compute(
      {1, 3, 5, 5}, [&](Var n, Var c, Var y, Var x) { return sum_pool(n, c, y, x) / Expr(9.0f); },
      "avg_pool");
  te::Schedule s = te::create_schedule({max_pool, avg_pool});
  s[padded].compute_inline();
  s[sum_pool].compute_at(s[avg_pool], avg_pool.axis(2));
  s[max_pool].parallel(max_pool.axis(1));
  ExpectMatchesReference(s, {data}, {max_pool, avg_pool}, "pooling");
}

TEST(OperatorsTest, Softmax) {
  te::Tensor x = te::placeholder({6, 37}, kF32, "x");
  te::IterVar k1 = te::reduce_axis(37, "k1"), k2 = te::reduce_axis(37, "k2");
  te::Tensor row_max = te::compute(
      {6}, [&](Var i) { return te::max(x(i, k1), {k1}); }, "row_max");
  te::Tensor e = te::compute(
      {6, 37}, [&](Var i, Var j) { return ir::exp(x(i, j) - row_max(i)); }, "e");
  te::Tensor row_sum = te::compute(
      {6}, [&](Var i) { return te::sum(e(i, k2), {k2}); }, "row_sum");
  te::Tensor y = te::compute(
      {6, 37}, [&](Var i, Var j) { return e(i, j) / row_sum(i); }, "y");
  te::Schedule s = te::create_schedule({y});
  s[e].compute_inline();
  s[row_max].parallel(row_max.axis(0));
  s[row_sum].compute_at(s[y], y.axis(0));
  auto [jo, ji] = s[y].split(y.axis(1), 8);
  s[y].vectorize(ji);
  s[y].parallel(y.axis(0));
  ExpectMatchesReference(s, {x}, {y}, "softmax", "llvm", 1e-5);
}

TEST(OperatorsTest, ReductionsAlongAxes) {
  te::Tensor a = te::placeholder({4, 5, 6}, kF32, "A");
  te::IterVar r1 = te::reduce_axis(5, "r1"), r0 = te::reduce_axis(4, "r0"),
              r2 = te::reduce_axis(6, "r2");
  te::Tensor sum1 = te::compute(
      {4, 6}, [&](Var i, Var k) { return te::sum(a(i, r1, k), {r1}); }, "sum1");
  te::Tensor max0 = te::compute(
      {5, 6}, [&](Var j, Var k) { return te::max(a(r0, j, k), {r0}); }, "max0");
  te::Tensor min2 = te::compute(
      {4, 5}, [&](Var i, Var j) { return te::min(a(i, j, r2), {r2}); }, "min2");
  te::Schedule s = te::create_schedule({sum1, max0, min2});
  s[sum1].vectorize(sum1.axis(1));
  s[max0].parallel(max0.axis(0));
  ExpectMatchesReference(s, {a}, {sum1, max0, min2}, "reductions");
}

TEST(OperatorsTest, TransposeReshapePad) {
  te::Tensor a = te::placeholder({3, 4, 5}, kF32, "A");
  te::Tensor transposed = te::compute(
      {5, 3, 4}, [&](Var i, Var j, Var k) { return a(j, k, i); }, "transpose");
  te::Tensor reshaped = te::compute(
      {12, 5}, [&](Var i, Var j) { return a(i / 4, i % 4, j); }, "reshape");
  te::Tensor padded = te::compute(
      {3, 6, 9},
      [&](Var i, Var j, Var k) {
        Expr inside = j >= 1 && j < 5 && k >= 2 && k < 7;
        return ir::if_then_else(inside, a(i, j - 1, k - 2), Expr(-1.0f));
      },
      "pad");
  te::Schedule s = te::create_schedule({transposed, reshaped, padded});
  s[transposed].vectorize(transposed.axis(2));
  s[reshaped].parallel(reshaped.axis(0));
  auto [ko, ki] = s[padded].split(padded.axis(2), 4);
  s[padded].unroll(ki);
  ExpectMatchesReference(s, {a}, {transposed, reshaped, padded}, "layout");
}

}  // namespace
}  // namespace tessera
