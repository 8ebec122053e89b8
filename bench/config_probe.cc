// Configs of a task timed alone: the template's fallback with the knobs given by --set
// changed, hot or with the caches flushed before every call (as a model's cold weights are),
// checked against the reference; optionally the assembly or LLVM IR written to a file (to see
// what LLVM made of a register tile: spills, broadcasts, gathers). Several --set flags are timed
// call by call in turn, and each is compared with the first by the median of the per-round
// ratios: on a machine whose speed drifts (a shared VM), only such interleaved ratios compare.
//
//   bazel run -c opt //bench:config_probe -- --task
//   'conv2d_NCHWc.x86(1,512,7,7,512,3,3,1,1,float32)'
//       [--set 'tile_oc=-1,32;unroll_kw=1' [--set ...]] [--cold] [--threads N] [--repeat R]
//       [--asm FILE]
//   (with --target '... -mtriple=T' the code is written, not run)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "common/command_line.h"
#include "common/file.h"
#include "compiler/driver/build.h"
#include "runtime/ndarray.h"
#include "runtime/packed_func.h"
#include "runtime/thread_pool.h"
#include "tuner/measure/task_measure.h"

namespace {

using namespace tessera;

struct Options {
  std::string task, target = "llvm -mcpu=native", asm_file, ll_file;
  std::vector<std::string> sets;
  int repeat = 30, threads = 1;
  bool cold = false;
};

// The fallback of `space` with the knobs of `set` ("name=v1,v2;name=v") replaced.
space::ConfigEntity ConfigOf(const space::ConfigSpace& space, const std::string& set) {
  const space::ConfigEntity fallback = space.Fallback();
  std::map<std::string, std::vector<int64_t>> values;
  for (const space::Knob& knob : fallback.knobs()) {
    values[knob.name] = knob.kind == space::KnobKind::kSplit
                            ? fallback.Split(knob.name)
                            : std::vector<int64_t>{fallback.Value(knob.name)};
  }
  std::stringstream items(set);
  for (std::string item; std::getline(items, item, ';');) {
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw UserError("--set '" + item + "': expected NAME=V[,V...]");
    std::vector<int64_t> value;
    std::stringstream numbers(item.substr(eq + 1));
    for (std::string n; std::getline(numbers, n, ',');) {
      try {
        value.push_back(std::stoll(n));
      } catch (const std::exception&) {
        throw UserError("--set '" + item + "': '" + n + "' is not an integer");
      }
    }
    values[item.substr(0, eq)] = value;
  }
  return space.FromValues(values);
}

// One config, built and ready to call on its own arrays.
struct Candidate {
  std::string label;
  double flops = 0;
  runtime::PackedFunc f;
  tuner::CandidateArgs args;
  std::vector<runtime::NDArray> arrays;
  std::vector<TesseraValue> values;
  std::vector<int32_t> codes;
  std::vector<double> seconds;

  void Call() {
    runtime::PackedArgs packed(values.data(), codes.data(), static_cast<int>(values.size()));
    runtime::RetValue ret;
    f.CallPacked(packed, &ret);
  }
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int Run(const Options& o) {
  task::Task task(o.task, o.target);
  auto fixture = tuner::MakeTaskFixture(task, 1);
  // Code for another machine (-mtriple) is only written, not run.
  const bool cross = !Target(o.target).mtriple().empty();
  const std::vector<std::string> sets = o.sets.empty() ? std::vector<std::string>{""} : o.sets;
  if (sets.size() > 1 && (!o.asm_file.empty() || !o.ll_file.empty())) {
    throw UserError("--asm and --ll take one --set");
  }
  std::vector<Candidate> candidates(sets.size());
  for (size_t c = 0; c < sets.size(); ++c) {
    Candidate& k = candidates[c];
    k.label = sets[c].empty() ? "fallback" : sets[c];
    const space::ConfigEntity config = ConfigOf(task.config_space(), sets[c]);
    std::printf("%s %s%s\n", task.workload_key().c_str(), config.ToString().c_str(),
                config == task.config_space().Fallback() ? " (fallback)" : "");
    const topi::ScheduledOp op = task.Instantiate(config);
    k.flops = op.flops;
    runtime::Module module = build(op.schedule, op.args, Target(o.target), "op");
    if (!o.asm_file.empty()) WriteFile(o.asm_file, module->GetSource("asm"), "assembly");
    if (!o.ll_file.empty()) WriteFile(o.ll_file, module->GetSource("ll"), "LLVM IR");
    if (cross) continue;
    k.f = module["op"];
    k.args = tuner::PrepareCandidateArgs(task, *fixture, config);
    k.arrays = tuner::CandidateArrays(k.args, DLDevice{kDLCPU, 0});
    k.values.resize(k.arrays.size());
    k.codes.resize(k.arrays.size());
    for (size_t i = 0; i < k.arrays.size(); ++i) {
      runtime::PackedFunc::SetArg(&k.values[i], &k.codes[i], k.arrays[i]);
    }
  }
  if (cross) return 0;
  runtime::SetNumThreads(o.threads);
  std::vector<std::string> mismatches;
  for (Candidate& k : candidates) {
    k.Call();
    mismatches.push_back(tuner::CompareOutput(
        *fixture, k.args.output_as_reference(k.arrays.back()->data).data(), 1e-3, 1e-3));
  }
  // 64 MB written between calls pushes the operands out of every cache level of today's CPUs.
  std::vector<float> flush(o.cold ? 16 << 20 : 0, 1.0f);
  for (int r = 0; r < o.repeat; ++r) {
    for (Candidate& k : candidates) {
      for (size_t i = 0; i < flush.size(); i += 16) flush[i] += 1.0f;
      const auto start = std::chrono::steady_clock::now();
      k.Call();
      k.seconds.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
  }
  bool correct = true;
  for (size_t c = 0; c < candidates.size(); ++c) {
    const Candidate& k = candidates[c];
    const double best = *std::min_element(k.seconds.begin(), k.seconds.end());
    const double median = Median(k.seconds);
    const double gflop = k.flops / 1e9;
    std::vector<double> ratios;
    for (size_t r = 0; r < k.seconds.size(); ++r) {
      ratios.push_back(k.seconds[r] / candidates[0].seconds[r]);
    }
    std::printf("  %s, %d thread(s): best %.1f us %.1f GFLOP/s, median %.1f us %.1f GFLOP/s, %s",
                o.cold ? "caches flushed" : "hot", o.threads, best * 1e6, gflop / best,
                median * 1e6, gflop / median,
                mismatches[c].empty() ? "output correct" : ("WRONG: " + mismatches[c]).c_str());
    if (candidates.size() > 1) {
      std::printf(", time x%.3f of the first  [%s]", Median(ratios), k.label.c_str());
    }
    std::printf("\n");
    correct = correct && mismatches[c].empty();
  }
  return correct ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{
      "Configs of a task timed alone (the fallback with --set knobs changed; several "
      "--set flags are timed in turn).",
      "config_probe"};
  app.option_defaults()->always_capture_default();
  app.add_option("--task", o.task,
                 "workload key, e.g. 'conv2d_NCHWc.x86(1,64,56,56,64,3,3,1,1,float32)'")
      ->required();
  app.add_option("--set", o.sets,
                 "knobs to change, e.g. 'tile_oc=-1,32;unroll_kw=1' (split outer -1); repeat the "
                 "flag to time several configs in turn, compared with the first");
  app.add_option("--target", o.target, "target string");
  app.add_option("--repeat", o.repeat, "timed calls of each config (best and median reported)")
      ->check(Positive());
  app.add_option("--threads", o.threads, "threads")->check(Positive());
  app.add_flag("--cold", o.cold, "flush the caches before every call");
  app.add_option("--asm", o.asm_file, "write the assembly to this file");
  app.add_option("--ll", o.ll_file, "write the LLVM IR to this file");
  return RunCommandLine(app, argc, argv, std::cout, std::cerr, [&] { return Run(o); });
}
