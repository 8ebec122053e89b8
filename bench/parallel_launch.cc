// Overhead of one parallel launch of the runtime thread pool (what every parallel loop of a
// compiled kernel pays), as the median over many launches of an empty body.
//   bazel run -c opt //bench:parallel_launch -- [--launches N] [--threads T]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "runtime/c_backend_api.h"
#include "runtime/thread_pool.h"

int main(int argc, char** argv) {
  int launches = 20000;
  int threads = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--launches") == 0) launches = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--threads") == 0) threads = std::atoi(argv[i + 1]);
  }
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
