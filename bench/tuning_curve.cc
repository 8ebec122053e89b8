// The tuning-time curve of a model (issue 17: "the time to tune ResNet-18 to within 5% of its
// final tuned latency"): reads a `tessera tune model.onnx` run back from the tuning log's record
// timestamps, prints the estimated latency of the tunable part (Σ weight × best) against tuning
// time, and at checkpoints compiles the model with only the records measured by then and
// measures its real end-to-end latency. The builds' runs interleave one by one (all checkpoints
// see the same machine load); medians are reported, of wall time and of the process's CPU time
// per run (on a machine shared with other work, time spent descheduled inflates wall time only;
// at one thread CPU time is the steadier measure).
//   bazel build -c opt //bench:tuning_curve
//   bazel-bin/bench/tuning_curve --model resnet18.onnx --db tuning.db
//       [--target 'llvm -mcpu=native'] [--at 0,30,60,...] [--repeat 15] [--csv F]
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>

#include "common/command_line.h"
#include "common/error.h"
#include "common/file.h"
#include "common/json.h"
#include "compiler/driver/build_model.h"
#include "compiler/frontend/onnx/onnx_importer.h"
#include "records/records_until.h"
#include "records/tuning_log.h"
#include "runtime/graph_executor.h"
#include "runtime/thread_pool.h"
#include "tuner/tune/apply_history.h"
#include "tuner/tune/tuning_curve.h"

namespace tessera {
namespace {

struct Flags {
  std::string model, db, target = "llvm -mcpu=native", csv;
  std::vector<double> at;  // checkpoints in seconds of tuning (empty: 0, 15, 30, 60, ... end)
  int repeat = 15;
  int threads = 0;
  bool json = false;
};

double CpuSeconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// The curve's point at `seconds` (the last record measured by then); null at 0, which stands
// for the untuned model.
const tuner::CurvePoint* PointAt(const std::vector<tuner::CurvePoint>& curve, double seconds) {
  const tuner::CurvePoint* found = nullptr;
  if (seconds <= 0) return found;
  for (const tuner::CurvePoint& p : curve) {
    if (p.seconds > seconds) break;
    found = &p;
  }
  return found;
}

std::vector<double> DefaultCheckpoints(double end) {
  std::vector<double> at = {0};
  for (double s = 15; s < end; s *= 2) at.push_back(s);
  at.push_back(end);
  return at;
}

int Run(const Flags& flags) {
  auto log = records::TuningLog::Open(flags.db, /*create=*/false);
  ModelBuildOptions options;
  options.target = flags.target;
  std::ostringstream quiet;  // fallback notices: the coverage column says it
  options.warnings = &quiet;
  const graph::Graph graph = frontend::ImportOnnx(flags.model);
  std::vector<ModelTask> tasks = ExtractTasks(graph, options);
  const std::vector<tuner::CurvePoint> curve = tuner::TuningCurveFromLog(tasks, flags.target, *log);
  if (curve.empty()) {
    throw UserError(flags.db + " has no record of " + flags.model + "'s " +
                    std::to_string(tasks.size()) + " tasks on '" + flags.target + "'");
  }
  if (!flags.csv.empty()) {
    std::ostringstream csv;
    csv << "seconds,trials,estimated_ms,measured_tasks\n";
    for (const tuner::CurvePoint& p : curve) {
      csv << p.seconds << "," << p.trials << "," << p.estimated * 1e3 << "," << p.measured_tasks
          << "\n";
    }
    WriteFile(flags.csv, csv.str(), "tuning curve");
  }
  const double end = curve.back().seconds;
  std::vector<double> at = flags.at.empty() ? DefaultCheckpoints(end) : flags.at;
  if (at.back() < end) at.push_back(end);  // the final latency is the reference
  runtime::SetNumThreads(flags.threads);

  // Build every checkpoint first, then time them interleaved.
  std::vector<std::unique_ptr<runtime::GraphExecutor>> builds;
  std::vector<std::string> coverage;
  const TempDir temp("tessera-bench-curve");  // the compiled checkpoints go when the run ends
  const std::string& dir = temp.path();
  for (size_t i = 0; i < at.size(); ++i) {
    const double start = curve.front().timestamp;
    records::RecordsUntil records(*log, at[i] <= 0 ? start - 1 : start + at[i]);
    const tuner::LogConfigSource configs(&records);
    options.configs = &configs;
    ModelBuild build = BuildModel(graph, options);
    const std::string out = dir + "/" + std::to_string(i);
    build.Save(out);
    coverage.push_back(build.CoverageLine());
    builds.push_back(
        std::make_unique<runtime::GraphExecutor>(runtime::GraphExecutor::LoadFromDirectory(out)));
    for (int w = 0; w < 3; ++w) builds.back()->Run();
  }
  std::vector<std::vector<double>> ms(builds.size()), cpu_ms(builds.size());
  for (int round = 0; round < flags.repeat; ++round) {
    for (size_t k = 0; k < builds.size(); ++k) {
      const size_t b = (round + k) % builds.size();  // rotating order: load hits every build
      const double cpu_start = CpuSeconds();
      auto start = std::chrono::steady_clock::now();
      builds[b]->Run();
      ms[b].push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count());
      cpu_ms[b].push_back((CpuSeconds() - cpu_start) * 1e3);
    }
  }
  const double final_ms = Median(ms.back()), final_cpu_ms = Median(cpu_ms.back());
  const int within = tuner::FirstWithin(curve, static_cast<int>(tasks.size()), 0.05);
  if (!flags.json) {
    std::printf("%s on '%s': %zu tasks, %lld records over %.0f s of tuning\n", flags.model.c_str(),
                flags.target.c_str(), tasks.size(), static_cast<long long>(curve.back().trials),
                end);
    std::printf("%9s %7s %8s %12s %11s %9s %8s %9s\n", "tuning_s", "trials", "tasks",
                "estimated_ms", "measured_ms", "vs_final", "cpu_ms", "cpu_vs_final");
  }
  int measured_within = -1, cpu_within = -1;
  for (size_t i = 0; i < at.size(); ++i) {
    const tuner::CurvePoint* p = PointAt(curve, at[i]);
    const double measured = Median(ms[i]), cpu = Median(cpu_ms[i]);
    if (measured_within < 0 && measured <= final_ms * 1.05) measured_within = static_cast<int>(i);
    if (cpu_within < 0 && cpu <= final_cpu_ms * 1.05) cpu_within = static_cast<int>(i);
    if (flags.json) {
      PrintJsonLine(Json{{"seconds", at[i]},
                         {"trials", p ? p->trials : 0},
                         {"measured_tasks", p ? p->measured_tasks : 0},
                         {"estimated_ms", p ? Json(p->estimated * 1e3) : Json()},
                         {"measured_ms", measured},
                         {"vs_final", measured / final_ms},
                         {"cpu_ms", cpu},
                         {"cpu_vs_final", cpu / final_cpu_ms},
                         {"coverage", coverage[i]}},
                    std::cout);
    } else {
      std::printf("%9.0f %7lld %4d/%-3zu %12.3f %11.3f %9.3f %8.3f %9.3f\n", at[i],
                  static_cast<long long>(p ? p->trials : 0), p ? p->measured_tasks : 0,
                  tasks.size(), p ? p->estimated * 1e3 : 0.0, measured, measured / final_ms, cpu,
                  cpu / final_cpu_ms);
    }
  }
  if (!flags.json) {
    if (within >= 0) {
      std::printf("estimate within 5%% of its final %.3f ms after %.0f s (%lld trials)\n",
                  curve.back().estimated * 1e3, curve[within].seconds,
                  static_cast<long long>(curve[within].trials));
    }
    std::printf(
        "measured within 5%% of the final %.3f ms at the %.0f s checkpoint (CPU time: "
        "%.3f ms, at the %.0f s checkpoint)\n",
        final_ms, at[measured_within], final_cpu_ms, at[cpu_within]);
  }
  return 0;
}

}  // namespace
}  // namespace tessera

int main(int argc, char** argv) {
  tessera::Flags flags;
  CLI::App app{
      "A model's tuning-time curve from its tuning log: the estimated latency of the tunable part "
      "against tuning time, and the measured end-to-end latency of builds using only the records "
      "of each checkpoint (medians of interleaved runs).",
      "tuning_curve"};
  app.add_option("--model", flags.model, "the ONNX model that was tuned")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--db", flags.db, "its tuning log")->required()->check(CLI::ExistingFile);
  app.add_option("--target", flags.target, "target string the records were tuned for");
  app.add_option("--at", flags.at,
                 "checkpoints in seconds of tuning, e.g. 0,60,120 (default 0, 15, 30, 60, ... "
                 "and the end)")
      ->delimiter(',')
      ->check(tessera::NonNegative());
  app.add_option("--repeat", flags.repeat, "timed runs per checkpoint (median)")
      ->check(tessera::Positive());
  app.add_option("--threads", flags.threads, "runtime threads (0: the pool's default)")
      ->check(tessera::NonNegative());
  app.add_option("--csv", flags.csv, "write the estimated curve (one row per record) here");
  app.add_flag("--json", flags.json, "one JSON line per checkpoint");
  return tessera::RunCommandLine(app, argc, argv, std::cout, std::cerr,
                                 [&] { return tessera::Run(flags); });
}
