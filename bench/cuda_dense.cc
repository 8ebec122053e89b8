// Dense n^3 float32 on a CUDA GPU: Tessera's dense.cuda with the tuning log's best config (or
// the fallback) against cuBLAS's cublasSgemm in the same process, results compared, both timed
// with CUDA events. cuBLAS is opened with dlopen from the toolkit (as NVRTC is); nothing here
// links CUDA. Needs a GPU (tools/gpu_check.sh runs it); elsewhere it stops with "no CUDA device".
//
//   bazel run -c opt //bench:cuda_dense -- [--db tuning.db] [--n 1024] [--arch sm_90]
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "common/command_line.h"
#include "compiler/codegen/cuda/cuda_toolkit.h"
#include "compiler/driver/build.h"
#include "compiler/task/task.h"
#include "records/tuning_log.h"
#include "runtime/data_type.h"
#include "runtime/device_api.h"
#include "runtime/ndarray.h"
#include "runtime/time_evaluator.h"
#include "tuner/tune/apply_history.h"

namespace {

using namespace tessera;

constexpr DLDevice kGPU{kDLCUDA, 0};

// The cuBLAS entry points used, with their documented signatures (cublas_api.h).
struct CuBLAS {
  using Handle = void*;
  int (*create)(Handle*);
  int (*destroy)(Handle);
  int (*sgemm)(Handle, int transa, int transb, int m, int n, int k, const float* alpha,
               const float* a, int lda, const float* b, int ldb, const float* beta, float* c,
               int ldc);
};

CuBLAS LoadCuBLAS() {
  codegen::CUDAToolkit tk = codegen::FindCUDAToolkit();
  if (tk.home.empty()) throw ConfigError("cuBLAS: " + tk.missing);
  void* lib = dlopen((tk.home + "/lib64/libcublas.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) throw ConfigError(std::string("cuBLAS could not be loaded: ") + dlerror());
  CuBLAS b{};
  b.create = reinterpret_cast<int (*)(CuBLAS::Handle*)>(dlsym(lib, "cublasCreate_v2"));
  b.destroy = reinterpret_cast<int (*)(CuBLAS::Handle)>(dlsym(lib, "cublasDestroy_v2"));
  b.sgemm = reinterpret_cast<decltype(b.sgemm)>(dlsym(lib, "cublasSgemm_v2"));
  if (!b.create || !b.destroy || !b.sgemm) throw ConfigError("cuBLAS lacks cublasSgemm_v2");
  return b;
}

std::vector<float> Host(const runtime::NDArray& a, size_t n) {
  std::vector<float> out(n);
  a.CopyToBytes(out.data(), n * sizeof(float));
  return out;
}

int Run(const std::string& db, int n, const std::string& arch, int repeat) {
  const std::string target = "cuda -arch=" + arch;
  task::Task task("dense.cuda(" + std::to_string(n) + "," + std::to_string(n) + "," +
                      std::to_string(n) + ",float32)",
                  target);
  std::unique_ptr<records::TuningLog> log;
  if (!db.empty()) log = records::TuningLog::Open(db, /*create=*/false);
  ChosenConfig chosen = tuner::ChooseConfig(task, log.get(), std::cerr);
  topi::ScheduledOp op = task.Instantiate(chosen.config);
  runtime::Module mod = build(op.schedule, op.args, Target(target), "dense");

  const size_t count = static_cast<size_t>(n) * n;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> a(count), w(count);
  for (float& v : a) v = dist(rng);
  for (float& v : w) v = dist(rng);
  auto gpu = [&](const std::vector<float>* values) {
    runtime::NDArray x = runtime::NDArray::Empty({n, n}, runtime::MakeDataType(kDLFloat, 32), kGPU);
    if (values) x.CopyFromBytes(values->data(), count * sizeof(float));
    return x;
  };
  runtime::NDArray ga = gpu(&a), gw = gpu(&w), gc = gpu(nullptr), gref = gpu(nullptr);

  runtime::PackedFunc dense = mod["dense"];
  dense(ga, gw, gc);
  CuBLAS cublas = LoadCuBLAS();
  CuBLAS::Handle handle = nullptr;
  if (cublas.create(&handle) != 0) throw ExternalError("cublasCreate failed");
  const float one = 1, zero = 0;
  // Row-major C = A W^T is column-major C^T = W^T' A^T': W read transposed, A as it is.
  auto sgemm = [&] {
    cublas.sgemm(handle, 1, 0, n, n, n, &one, static_cast<const float*>(gw->data), n,
                 static_cast<const float*>(ga->data), n, &zero, static_cast<float*>(gref->data), n);
  };
  sgemm();
  runtime::DeviceAPI::Get(kGPU)->Synchronize(0);
  std::vector<float> got = Host(gc, count), want = Host(gref, count);
  double worst = 0;
  for (size_t i = 0; i < count; ++i)
    worst = std::max(worst, std::fabs(double(got[i]) - want[i]) / (1 + std::fabs(want[i])));

  double tessera_best = 1e30, cublas_best = 1e30;
  for (int r = 0; r < repeat; ++r) {
    tessera_best = std::min(tessera_best, runtime::CUDAElapsedSeconds(0, [&] {
                                            for (int i = 0; i < 10; ++i) dense(ga, gw, gc);
                                          }) / 10);
    cublas_best = std::min(cublas_best, runtime::CUDAElapsedSeconds(0, [&] {
                                          for (int i = 0; i < 10; ++i) sgemm();
                                        }) / 10);
  }
  cublas.destroy(handle);
  const double gflop = 2.0 * n * n * n / 1e9;
  std::printf("dense %d^3 float32 on %s, config %s (%s)\n", n, target.c_str(),
              chosen.config.ToString().c_str(), chosen.record ? "tuned" : "fallback");
  std::printf("  tessera %.1f GFLOP/s (%.3f ms), cuBLAS %.1f GFLOP/s (%.3f ms), ratio %.2f\n",
              gflop / tessera_best, tessera_best * 1e3, gflop / cublas_best, cublas_best * 1e3,
              cublas_best / tessera_best);
  std::printf("  largest relative difference to cuBLAS: %.2e\n", worst);
  return worst < 1e-3 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Tessera's dense.cuda against cuBLAS on a CUDA GPU."};
  std::string db, arch = "sm_90";
  int n = 1024, repeat = 10;
  app.add_option("--db", db, "tuning log whose best dense.cuda record is used (default: fallback)");
  app.add_option("--n", n, "matrix size")->check(CLI::PositiveNumber);
  app.add_option("--arch", arch, "CUDA architecture of the PTX");
  app.add_option("--repeat", repeat, "timed runs of 10 calls each (best counts)")
      ->check(CLI::PositiveNumber);
  return tessera::RunCommandLine(app, argc, argv, std::cout, std::cerr,
                                 [&] { return Run(db, n, arch, repeat); });
}
