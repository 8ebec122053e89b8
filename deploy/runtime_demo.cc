// The runtime on its own, as a deployment uses it: load a compiled kernel library, move arrays,
// call and time a kernel, and save/load parameters. Usage: runtime_demo KERNELS.so WORKDIR
#include <algorithm>
#include <cstdio>
#include <string>

#include "runtime/data_type.h"
#include "runtime/module.h"
#include "runtime/params.h"
#include "runtime/thread_pool.h"
#include "runtime/time_evaluator.h"

using namespace tessera::runtime;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s KERNELS.so WORKDIR\n", argv[0]);
    return 2;
  }
  try {
    Module mod = Module::LoadFromFile(argv[1]);
    const int64_t n = 1 << 22;
    NDArray x = NDArray::Empty({n}, ParseDataType("float32"), CPUDevice());
    NDArray y = NDArray::Empty({n}, ParseDataType("float32"), CPUDevice());
    for (int64_t i = 0; i < n; ++i) {
      x.Data<float>()[i] = static_cast<float>(i % 100);
      y.Data<float>()[i] = 1.0f;
    }
    PackedFunc saxpy = mod["saxpy"];
    saxpy(2.0, x, y);
    bool ok = y.Data<float>()[99] == 199.0f && y.Data<float>()[n - 1] == 2.0f * ((n - 1) % 100) + 1;
    std::printf("saxpy on %lld floats with %d threads: %s\n", static_cast<long long>(n),
                NumThreads(), ok ? "correct" : "WRONG");

    NDArray seconds = TimeEvaluator(saxpy, CPUDevice(), 10, 3, 50, false)(2.0, x, y);
    double best = seconds.Data<double>()[0];
    for (int i = 1; i < 3; ++i) best = std::min(best, seconds.Data<double>()[i]);
    std::printf("saxpy time: %.3f ms per call, %.2f GB/s\n", best * 1e3, 3.0 * n * 4 / best / 1e9);

    std::string params = std::string(argv[2]) + "/demo.params";
    SaveParamsToFile({{"x", x}, {"y", y}}, params);
    auto loaded = LoadParamsFromFile(params);
    std::printf("params file %s: %zu arrays, y[99] = %.1f\n", params.c_str(), loaded.size(),
                loaded.at("y").Data<float>()[99]);

    try {
      saxpy(2.0, x);
    } catch (const Error& e) {
      std::printf("a bad call is a clear error: %s\n", e.what());
    }
    return ok ? 0 : 1;
  } catch (const Error& e) {
    std::fprintf(stderr, "runtime_demo: error: %s\n", e.what());
    return 1;
  }
}
