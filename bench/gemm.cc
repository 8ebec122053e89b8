// Matmul 1024^3 float32: Tessera's LLVM backend with a hand-written schedule (B packed into
// column panels, an 8x32 register tile accumulated over the whole reduction, vectorized and
// unrolled, panels spread over threads) against OpenBLAS cblas_sgemm in the same process.
//
//   bazel run -c opt //bench:gemm -- [--threads N] [--n N] [--repeat R] [--target T] [--json]
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "bench/exact_check.h"
#include "common/command_line.h"
#include "common/json.h"
#include "compiler/tessera.h"
#include "runtime/ndarray.h"
#include "runtime/thread_pool.h"

extern "C" void openblas_set_num_threads(int num_threads);

namespace {

using namespace tessera;

struct Options {
  int threads = 1;
  int n = 1024;
  int repeat = 10;
  bool json = false;
  std::string target = "llvm -mcpu=native";
};

constexpr int kTileRows = 8;   // rows of C accumulated in registers
constexpr int kTileCols = 32;  // columns of C per panel: two AVX-512 or four AVX2 vectors

// C = A * B with B repacked so that each 32-column panel is contiguous along the reduction.
runtime::Module BuildMatmul(int n, const Target& target) {
  te::Tensor a = te::placeholder({n, n}, ir::DataType::Float(32), "A");
  te::Tensor b = te::placeholder({n, n}, ir::DataType::Float(32), "B");
  te::Tensor packed = te::compute(
      {n / kTileCols, n, kTileCols},
      [&](ir::Var panel, ir::Var k, ir::Var col) { return b(k, panel * kTileCols + col); },
      "packedB");
  te::IterVar k = te::reduce_axis(n, "k");
  te::Tensor c = te::compute(
      {n, n},
      [&](ir::Var i, ir::Var j) {
        return te::sum(a(i, k) * packed(j / kTileCols, k, j % kTileCols), {k});
      },
      "C");
  te::Schedule s = te::create_schedule({c});
  te::Tensor acc = s.cache_write(c, "local");
  auto [row_tile, panel, row, col] = s[c].tile(s[c].axis(0), s[c].axis(1), kTileRows, kTileCols);
  s[c].reorder({panel, row_tile, row, col});
  s[c].vectorize(col);
  s[c].parallel(panel);
  s[acc].compute_at(s[c], row_tile);
  te::Stage acc_stage = s[acc];
  s[acc].reorder({acc_stage.reduce_axis(0), acc_stage.axis(0), acc_stage.axis(1)});
  s[acc].unroll(acc_stage.axis(0));
  s[acc].vectorize(acc_stage.axis(1));
  te::Stage pack_stage = s[packed];
  s[packed].vectorize(pack_stage.axis(2));
  s[packed].parallel(pack_stage.axis(0));
  return build(s, {a, b, c}, target, "matmul");
}

template <typename F>
double Seconds(F&& run) {
  auto start = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int Run(const Options& o) {
  runtime::SetNumThreads(o.threads);
  openblas_set_num_threads(o.threads);
  const int n = o.n;
  auto array = [&] {
    return runtime::NDArray::Empty({n, n}, DLDataType{kDLFloat, 32, 1}, DLDevice{kDLCPU, 0});
  };
  runtime::NDArray a = array(), b = array(), c = array(), reference = array();
  for (int i = 0; i < n * n; ++i) {
    a.Data<float>()[i] = static_cast<float>((i * 7 % 13) - 6) / 8;
    b.Data<float>()[i] = static_cast<float>((i * 5 % 11) - 5) / 8;
  }

  runtime::Module mod = BuildMatmul(n, Target(o.target));
  runtime::PackedFunc matmul = mod["matmul"];
  auto run_tessera = [&] { matmul(a, b, c); };
  auto run_openblas = [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.Data<float>(), n,
                b.Data<float>(), n, 0.0f, reference.Data<float>(), n);
  };
  run_tessera();  // warm up: page faults, JIT, thread pools
  run_openblas();
  // Alternating runs, best of each: a machine shared with other work slows both alike.
  double tessera_s = 1e30, openblas_s = 1e30;
  for (int r = 0; r < o.repeat; ++r) {
    tessera_s = std::min(tessera_s, Seconds(run_tessera));
    openblas_s = std::min(openblas_s, Seconds(run_openblas));
  }
  const double max_error =
      bench::MaxAbsDifference(c.Data<float>(), reference.Data<float>(), int64_t{n} * n);
  // The inputs are multiples of 1/8 of magnitude at most 6/8: products are multiples of 1/64, and
  // below 2^24 / 64 every partial sum is exact, so a correct kernel matches OpenBLAS exactly.
  const double tolerance = bench::DotProductTolerance(n, 36.0 / 64, 1.0 / 64);
  const double flops = 2.0 * n * n * n;
  double tessera_gflops = flops / tessera_s / 1e9;
  double openblas_gflops = flops / openblas_s / 1e9;
  double ratio = tessera_gflops / openblas_gflops;
  bool correct = max_error <= tolerance;
  if (o.json) {
    PrintJsonLine({{"benchmark", "gemm"},
                   {"n", n},
                   {"threads", o.threads},
                   {"target", o.target},
                   {"tessera_gflops", Round(tessera_gflops, 2)},
                   {"openblas_gflops", Round(openblas_gflops, 2)},
                   {"ratio", Round(ratio, 3)},
                   {"max_abs_error", max_error},
                   {"correct", correct}},
                  std::cout);
  } else {
    std::printf("gemm %dx%dx%d float32, %d thread%s, target '%s'\n", n, n, n, o.threads,
                o.threads == 1 ? "" : "s", o.target.c_str());
    std::printf("  tessera   %8.2f GFLOP/s  (%.3f ms)\n", tessera_gflops, tessera_s * 1e3);
    std::printf("  openblas  %8.2f GFLOP/s  (%.3f ms)\n", openblas_gflops, openblas_s * 1e3);
    std::printf("  ratio     %8.3f  (max abs error vs OpenBLAS %.3g, allowed %.3g%s)\n", ratio,
                max_error, tolerance, correct ? "" : ", WRONG");
  }
  return correct ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"Matmul n³ float32 with a hand-written schedule against OpenBLAS.", "gemm"};
  app.option_defaults()->always_capture_default();
  app.add_option("--threads", o.threads, "threads of both libraries")->check(Positive());
  app.add_option("--n", o.n, "matrix size, a multiple of 32")
      ->check(CLI::Validator(
          [](std::string& v) {
            int n = std::atoi(v.c_str());
            return n >= 32 && n % 32 == 0 ? std::string() : "must be a multiple of 32, got " + v;
          },
          "32k"));
  app.add_option("--repeat", o.repeat, "timed runs of each (best counts)")->check(Positive());
  app.add_option("--target", o.target, "target string");
  app.add_flag("--json", o.json, "one JSON object");
  return RunCommandLine(app, argc, argv, std::cout, std::cerr, [&o] { return Run(o); });
}
