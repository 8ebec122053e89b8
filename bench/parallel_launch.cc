// Overhead of one parallel launch of the runtime thread pool (what every parallel loop of a
// compiled kernel pays), as the median over many launches of an empty body.
//   bazel run -c opt //bench:parallel_launch -- [--launches N] [--threads T]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <vector>

#include "common/command_line.h"
#include "runtime/c_backend_api.h"
#include "runtime/thread_pool.h"

namespace {

int Run(int launches, int threads) {
  if (threads > 0) tessera::runtime::SetNumThreads(threads);
  auto body = [](int, TesseraParallelGroupEnv*, void*) -> int { return 0; };
  std::vector<double> micros;
  micros.reserve(launches);
  for (int i = 0; i < launches; ++i) {
    auto start = std::chrono::steady_clock::now();
    TesseraBackendParallelLaunch(body, nullptr, 0);
    micros.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
            .count());
  }
  std::sort(micros.begin(), micros.end());
  std::printf(
      "parallel launch on %d threads: median %.2f us, p99 %.2f us, max %.1f us (%d launches)\n",
      tessera::runtime::NumThreads(), micros[micros.size() / 2], micros[micros.size() * 99 / 100],
      micros.back(), launches);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int launches = 20000;
  int threads = 0;
  CLI::App app{"Overhead of one parallel launch of the runtime's thread pool.", "parallel_launch"};
  app.option_defaults()->always_capture_default();
  app.add_option("--launches", launches, "launches measured")->check(tessera::Positive());
  app.add_option("--threads", threads, "pool size (0: TESSERA_NUM_THREADS or all cores)")
      ->check(tessera::NonNegative());
  return tessera::RunCommandLine(app, argc, argv, std::cout, std::cerr,
                                 [&] { return Run(launches, threads); });
}
