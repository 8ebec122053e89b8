/// \file
/// What the benchmarks print beside their figures: percentiles of timed samples and the
/// machine's load average.
#ifndef TESSERA_BENCH_STATS_H_
#define TESSERA_BENCH_STATS_H_

#include <sys/types.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace tessera {
namespace bench {

/// Milliseconds in `d`.
inline double Millis(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

/// The shortest of `repeat` timed calls of `run`, in seconds, each after an untimed `before`
/// (such as evicting a kernel's weights from the caches), after one untimed call of `run` (page
/// faults, thread pool start).
template <typename B, typename F>
double BestSecondsAfter(int repeat, B&& before, F&& run) {
  run();
  double best = 1e30;
  for (int r = 0; r < repeat; ++r) {
    before();
    auto start = std::chrono::steady_clock::now();
    run();
    best = std::min(
        best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

/// The shortest of `repeat` timed calls of `run`, in seconds, after one untimed call (page
/// faults, thread pool start).
template <typename F>
double BestSeconds(int repeat, F&& run) {
  return BestSecondsAfter(
      repeat, [] {}, std::forward<F>(run));
}

/// The nearest-rank percentile `p` (0..1) of `values`; 0 when there are none.
double Percentile(std::vector<double> values, double p);

/// CPU seconds (user + system) used so far by process `pid` (0: this process).
double CpuSeconds(pid_t pid);

/// The one-minute load average and the number of cores, as "L on N cores".
std::string LoadAverage();

}  // namespace bench
}  // namespace tessera

#endif  // TESSERA_BENCH_STATS_H_
