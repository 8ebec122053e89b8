// Overhead of one parallel launch of the runtime thread pool (what every parallel loop of a
// compiled kernel pays), as the median and p99 over many launches of an empty body, at 1, 2 and
// 2 x cores threads, with empty tasks and with tasks of 5 us (one per thread), and a loop of
// 200 us at 2 threads in one or four chunks per thread, first on an
// otherwise idle machine, then beside one competing busy process (a spinning child, as when a
// deployed model shares its cores or a tuner builds beside a measurement). Each configuration stops
// after --launches launches or --seconds.
//   bazel run -c opt //bench:parallel_launch -- [--launches N] [--seconds S]
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <thread>
#include <vector>

#include "common/command_line.h"

#include "compiler/tessera.h"
#include "runtime/c_backend_api.h"
#include "runtime/thread_pool.h"

namespace {

// A task that works for `*cdata` microseconds (0: returns at once).
int Task(int, TesseraParallelGroupEnv*, void* cdata) {
  const double work_us = *static_cast<double*>(cdata);
  if (work_us <= 0) return 0;
  const auto end =
      std::chrono::steady_clock::now() + std::chrono::duration<double, std::micro>(work_us);
  while (std::chrono::steady_clock::now() < end) {
  }
  return 0;
}

// Times launches of `num_task` tasks of `work_us` each at `threads` threads, after one launch
// that starts the workers, until `launches` launches or `seconds` pass; sorted microseconds.
std::vector<double> TimeLaunches(int threads, double work_us, int num_task, int launches,
                                 double seconds) {
  tessera::runtime::SetNumThreads(threads);
  TesseraBackendParallelLaunch(Task, &work_us, num_task);
  std::vector<double> micros;
  micros.reserve(launches);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (static_cast<int>(micros.size()) < launches &&
         std::chrono::steady_clock::now() < deadline) {
    auto start = std::chrono::steady_clock::now();
    TesseraBackendParallelLaunch(Task, &work_us, num_task);
    micros.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
            .count());
  }
  std::sort(micros.begin(), micros.end());
  return micros;
}

void Measure(int threads, double work_us, int launches, double seconds, const char* load) {
  const std::vector<double> micros = TimeLaunches(threads, work_us, 0, launches, seconds);
  std::printf(
      "%-11s %2d threads, tasks of %3.0f us: median %9.2f us, p99 %9.2f us, max %10.1f us "
      "(%zu launches)\n",
      load, threads, work_us, micros[micros.size() / 2], micros[micros.size() * 99 / 100],
      micros.back(), micros.size());
  std::fflush(stdout);
}

// A kernel whose parallel loop runs 3600 times: a producer with a parallel axis of 16, computed
// at each point of a 60 x 60 consumer. Its 16 stores are tiny work, so the LLVM backend runs the
// loop inline (before, each of the 3600 was a launch of the pool). Prints its median time over
// `runs` runs.
void MeasureKernel(const tessera::runtime::Module& mod, int threads, int runs, const char* load) {
  using namespace tessera;
  tessera::runtime::SetNumThreads(threads);
  runtime::NDArray a =
      runtime::NDArray::Empty({60, 60, 16}, DataType::Float(32).ToDL(), {kDLCPU, 0});
  runtime::NDArray out = runtime::NDArray::Empty({60, 60}, DataType::Float(32).ToDL(), {kDLCPU, 0});
  for (int64_t i = 0; i < a.NumElements(); ++i) a.Data<float>()[i] = 1.0f;
  mod["nested"](a, out);
  std::vector<double> millis;
  for (int r = 0; r < runs; ++r) {
    auto start = std::chrono::steady_clock::now();
    mod["nested"](a, out);
    millis.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
  }
  std::sort(millis.begin(), millis.end());
  std::printf(
      "%-11s %2d threads, kernel with 3600 tiny parallel loops: median %9.3f ms (%d runs)\n", load,
      threads, millis[millis.size() / 2], runs);
  std::fflush(stdout);
}

// A parallel loop of `total_us` of work at `threads` threads, cut into `per_thread` chunks per
// thread (the launch asks for -per_thread tasks), as compiled kernels launch their loops. Beside
// a busy process the OS preempts a pool thread now and then; with more chunks the other threads
// take the rest of its share. Prints the median and p99 of the launch's time.
void MeasureChunkedLoop(int threads, double total_us, int per_thread, int launches, double seconds,
                        const char* load) {
  const std::vector<double> micros =
      TimeLaunches(threads, total_us / (threads * per_thread), -per_thread, launches, seconds);
  std::printf(
      "%-11s %2d threads, loop of %4.0f us in %d chunk(s) per thread: median %9.2f us, p99 "
      "%9.2f us (%zu launches)\n",
      load, threads, total_us, per_thread, micros[micros.size() / 2],
      micros[micros.size() * 99 / 100], micros.size());
  std::fflush(stdout);
}

// Launches of one task of `work_us` per thread, each after `gap_us` of serial work on the
// launching thread (as a model runs a small serial kernel between two parallel ones); prints the
// median and p99 of the launch's time beyond `work_us`, what the gap costs the next launch.
void MeasureAfterGap(int threads, double gap_us, double work_us, int launches, double seconds,
                     const char* load) {
  tessera::runtime::SetNumThreads(threads);
  TesseraBackendParallelLaunch(Task, &work_us, 0);
  std::vector<double> micros;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (static_cast<int>(micros.size()) < launches &&
         std::chrono::steady_clock::now() < deadline) {
    Task(0, nullptr, &gap_us);
    auto start = std::chrono::steady_clock::now();
    TesseraBackendParallelLaunch(Task, &work_us, 0);
    micros.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
            .count() -
        work_us);
  }
  std::sort(micros.begin(), micros.end());
  std::printf(
      "%-11s %2d threads, tasks of %3.0f us after %4.0f us serial: overhead median %8.2f us, "
      "p99 %8.2f us (%zu launches)\n",
      load, threads, work_us, gap_us, micros[micros.size() / 2], micros[micros.size() * 99 / 100],
      micros.size());
  std::fflush(stdout);
}

// What a model run finds after the pool has been idle (a service between requests): `pause_ms`
// of sleep, then two runs of `launches` launches (tasks of `work_us` per thread, 10 us serial
// between launches), the first a warm-up as //bench:models runs one, each in a RunScope as a
// model's run is (with `scoped`). Prints the median time of
// the first and second run over `rounds`, against `launches` x `work_us` for a run whose
// threads all help from the start.
void MeasureRunsAfterIdle(int threads, double pause_ms, int launches, double work_us, int rounds,
                          bool scoped, const char* load) {
  tessera::runtime::SetNumThreads(threads);
  TesseraBackendParallelLaunch(Task, &work_us, 0);
  double serial_us = 10;
  auto run = [&] {
    std::optional<tessera::runtime::RunScope> scope;
    if (scoped) scope.emplace();
    auto start = std::chrono::steady_clock::now();
    for (int l = 0; l < launches; ++l) {
      Task(0, nullptr, &serial_us);
      TesseraBackendParallelLaunch(Task, &work_us, 0);
    }
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
        .count();
  };
  std::vector<double> first, second;
  for (int r = 0; r < rounds; ++r) {
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(pause_ms));
    first.push_back(run());
    second.push_back(run());
  }
  std::sort(first.begin(), first.end());
  std::sort(second.begin(), second.end());
  std::printf(
      "%-11s %2d threads, %d launches of %3.0f us tasks after %4.0f ms idle%s: first run "
      "median %8.1f us, second %8.1f us (all threads from the start: %.0f us)\n",
      load, threads, launches, work_us, pause_ms, scoped ? ", in a RunScope" : "",
      first[first.size() / 2], second[second.size() / 2], launches * (work_us + serial_us));
  std::fflush(stdout);
}

tessera::runtime::Module BuildNestedKernel() {
  using namespace tessera;
  te::Tensor A = te::placeholder({60, 60, 16}, DataType::Float(32), "A");
  te::Tensor P = te::compute(
      {60, 60, 16}, [&](Var i, Var j, Var k) { return A(i, j, k) * 2.0f; }, "P");
  te::IterVar k = te::reduce_axis(16, "k");
  te::Tensor out = te::compute(
      {60, 60}, [&](Var i, Var j) { return te::sum(P(i, j, k), {k}); }, "out");
  te::Schedule s = te::create_schedule({out});
  s[P].compute_at(s[out], out.axis(1));
  s[P].parallel(P.axis(2));
  return build(s, {A, out}, Target("llvm"), "nested");
}

int Run(int launches, double seconds) {
  const int cores = std::max(1u, std::thread::hardware_concurrency());
  const int counts[] = {1, 2, 2 * cores};
  tessera::runtime::Module kernel = BuildNestedKernel();
  auto all = [&](const char* load) {
    for (double work_us : {0.0, 5.0}) {
      for (int threads : counts) Measure(threads, work_us, launches, seconds, load);
    }
    for (int threads : counts) MeasureKernel(kernel, threads, 5, load);
    for (int per_thread : {1, 4}) {
      MeasureChunkedLoop(2, 200, per_thread, launches / 10, seconds, load);
    }
    for (double gap_us : {0.0, 5.0, 20.0, 100.0, 500.0, 2000.0, 20000.0}) {
      MeasureAfterGap(2, gap_us, 20, launches / 10, seconds, load);
    }
    for (bool scoped : {false, true}) MeasureRunsAfterIdle(2, 200, 55, 25, 15, scoped, load);
  };
  all("idle");
  pid_t busy = fork();
  if (busy == 0) {
    for (volatile unsigned long spin = 0;; spin = spin + 1) {
    }
  }
  all("beside busy");
  kill(busy, SIGKILL);
  waitpid(busy, nullptr, 0);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int launches = 20000;
  double seconds = 5;
  CLI::App app{"Overhead of one parallel launch of the runtime thread pool.", "parallel_launch"};
  app.option_defaults()->always_capture_default();
  app.add_option("--launches", launches, "launches per configuration")->check(tessera::Positive());
  app.add_option("--seconds", seconds, "time limit per configuration")->check(tessera::Positive());
  return tessera::RunCommandLine(app, argc, argv, std::cout, std::cerr,
                                 [&] { return Run(launches, seconds); });
}
