/// \file
/// Schedules for the CUDA backend's tests: bound elementwise kernels and a tiled matmul with
/// shared-memory tiles and a register tile, small enough to compile quickly.
#ifndef TESSERA_TESTS_COMPILER_CODEGEN_CUDA_CUDA_TEST_UTIL_H_
#define TESSERA_TESTS_COMPILER_CODEGEN_CUDA_CUDA_TEST_UTIL_H_

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "compiler/lower/lower.h"
#include "compiler/te/schedule.h"

namespace tessera {
namespace testing {

/// A schedule with its arguments.
struct GPUSchedule {
  te::Schedule schedule;         ///< the schedule
  std::vector<te::Tensor> args;  ///< inputs then outputs
};

/// `B = f(A)` over `n` elements, `threads` per block, the inner `vector` lanes vectorized (1 =
/// scalar).
inline GPUSchedule Elementwise(int n, int threads, int vector,
                               const std::function<ir::Expr(ir::Expr)>& f) {
  te::Tensor A = te::placeholder({n}, ir::DataType::Float(32), "A");
  te::Tensor B = te::compute(
      {n}, [&](te::Var i) { return f(A(i)); }, "B");
  te::Schedule s = te::create_schedule({B});
  auto [outer, lanes] = s[B].split(B.axis(0), vector);
  auto [bx, tx] = s[B].split(outer, threads);
  s[B].bind(bx, "blockIdx.x");
  s[B].bind(tx, "threadIdx.x");
  if (vector > 1) s[B].vectorize(lanes);
  return {s, {A, B}};
}

/// `C = A * B` (n × n × n): 2-D blocks of `tile` × `tile` threads, each computing `reg` × `reg`
/// outputs, with A and B tiles of the k-step `tk` staged in shared memory and C's tile in a
/// local cache.
inline GPUSchedule TiledMatmul(int n, int tile, int reg, int tk) {
  te::Tensor A = te::placeholder({n, n}, ir::DataType::Float(32), "A");
  te::Tensor B = te::placeholder({n, n}, ir::DataType::Float(32), "B");
  te::IterVar k = te::reduce_axis(n, "k");
  te::Tensor C = te::compute(
      {n, n}, [&](te::Var i, te::Var j) { return te::sum(A(i, k) * B(k, j), {k}); }, "C");
  te::Schedule s = te::create_schedule({C});
  te::Tensor CL = s.cache_write(C, "local");
  te::Tensor AS = s.cache_read(A, "shared", {CL});
  te::Tensor BS = s.cache_read(B, "shared", {CL});
  auto [by, ty] = s[C].split(s[C].axis(0), tile * reg);
  auto [bx, tx] = s[C].split(s[C].axis(1), tile * reg);
  auto [tyo, tyi] = s[C].split(ty, reg);
  auto [txo, txi] = s[C].split(tx, reg);
  s[C].reorder({by, bx, tyo, txo, tyi, txi});
  s[C].bind(by, "blockIdx.y");
  s[C].bind(bx, "blockIdx.x");
  s[C].bind(tyo, "threadIdx.y");
  s[C].bind(txo, "threadIdx.x");
  s[CL].compute_at(s[C], txo);
  auto [ko, ki] = s[CL].split(s[CL].reduce_axis(0), tk);
  s[CL].reorder({ko, ki, s[CL].axis(0), s[CL].axis(1)});
  for (const te::Tensor& t : {AS, BS}) {
    s[t].compute_at(s[CL], ko);
    te::IterVar fused = s[t].fuse(s[t].axis(0), s[t].axis(1));
    auto [rest, x] = s[t].split(fused, tile);
    auto [rest2, y] = s[t].split(rest, tile);
    s[t].reorder({rest2, y, x});
    s[t].bind(y, "threadIdx.y");
    s[t].bind(x, "threadIdx.x");
  }
  return {s, {A, B, C}};
}

/// A random but valid GPU schedule drawn from `rng`: a 2-D elementwise or row-reduction op with
/// random block shapes and vector widths, or a tiled matmul with random tile, register tile and
/// k step; `desc` says which.
inline GPUSchedule RandomGPUSchedule(std::mt19937* rng, std::string* desc) {
  auto pick = [&](std::vector<int> xs) {
    return xs[std::uniform_int_distribution<size_t>(0, xs.size() - 1)(*rng)];
  };
  int kind = pick({0, 1, 2});
  if (kind == 2) {
    int tile = pick({4, 8, 16}), reg = pick({1, 2, 4}), tk = pick({4, 8, 16});
    int n = tile * reg * pick({1, 2, 3});
    n = (n + tk - 1) / tk * tk;
    while (n % (tile * reg) != 0) n += tk;
    *desc = "matmul n=" + std::to_string(n) + " tile=" + std::to_string(tile) +
            " reg=" + std::to_string(reg) + " tk=" + std::to_string(tk);
    return TiledMatmul(n, tile, reg, tk);
  }
  int rows = pick({1, 7, 64, 300}), cols = pick({4, 33, 128, 256});
  te::Tensor A = te::placeholder({rows, cols}, ir::DataType::Float(32), "A");
  if (kind == 1) {
    te::IterVar k = te::reduce_axis(cols, "k");
    te::Tensor S = te::compute(
        {rows}, [&](te::Var i) { return te::sum(A(i, k) * A(i, k), {k}); }, "S");
    te::Schedule s = te::create_schedule({S});
    int threads = pick({32, 64, 256});
    auto [bx, tx] = s[S].split(S.axis(0), threads);
    s[S].bind(bx, "blockIdx.x");
    s[S].bind(tx, "threadIdx.x");
    *desc = "row sum " + std::to_string(rows) + "x" + std::to_string(cols) +
            " threads=" + std::to_string(threads);
    return {s, {A, S}};
  }
  te::Tensor B = te::compute(
      {rows, cols}, [&](te::Var i, te::Var j) { return A(i, j) * 0.5f + 1.0f; }, "B");
  te::Schedule s = te::create_schedule({B});
  int vector = cols % 4 == 0 ? pick({1, 2, 4}) : 1;
  int tx_n = pick({8, 32, 64});
  auto [jo, ji] = s[B].split(B.axis(1), vector);
  auto [jb, jt] = s[B].split(jo, tx_n);
  auto [ib, it] = s[B].split(B.axis(0), pick({1, 2, 4}));
  s[B].reorder({ib, jb, it, jt, ji});
  s[B].bind(ib, "blockIdx.y");
  s[B].bind(jb, "blockIdx.x");
  s[B].bind(it, "threadIdx.y");
  s[B].bind(jt, "threadIdx.x");
  if (vector > 1) s[B].vectorize(ji);
  *desc = "elementwise " + std::to_string(rows) + "x" + std::to_string(cols) +
          " vector=" + std::to_string(vector) + " threads.x=" + std::to_string(tx_n);
  return {s, {A, B}};
}

}  // namespace testing
}  // namespace tessera

#endif  // TESSERA_TESTS_COMPILER_CODEGEN_CUDA_CUDA_TEST_UTIL_H_
