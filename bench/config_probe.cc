// One config of a task, timed alone: the template's fallback with the knobs given by --set
// changed, hot or with the caches flushed before every call (as a model's cold weights are),
// checked against the reference; optionally its assembly or LLVM IR written to a file (to see
// what LLVM made of a register tile: spills, broadcasts, gathers).
//
//   bazel run -c opt //bench:config_probe -- --task
//   'conv2d_NCHWc.x86(1,512,7,7,512,3,3,1,1,float32)'
//       [--set 'tile_oc=-1,32;unroll_kw=1'] [--cold] [--threads N] [--repeat R] [--asm FILE]
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
  std::string task, set, target = "llvm -mcpu=native", asm_file, ll_file;
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

int Run(const Options& o) {
  tuner::Task task(o.task, o.target);
  const space::ConfigEntity config = ConfigOf(task.config_space(), o.set);
  std::printf("%s %s%s\n", task.workload_key().c_str(), config.ToString().c_str(),
              config == task.config_space().Fallback() ? " (fallback)" : "");
  const topi::ScheduledOp op = task.Instantiate(config);
  runtime::Module module = build(op.schedule, op.args, Target(o.target), "op");
  if (!o.asm_file.empty()) WriteFile(o.asm_file, module->GetSource("asm"), "assembly");
  if (!o.ll_file.empty()) WriteFile(o.ll_file, module->GetSource("ll"), "LLVM IR");
  // Code for another machine (-mtriple) is only written, not run.
  if (!Target(o.target).mtriple().empty()) return 0;
  runtime::PackedFunc f = module["op"];
  auto fixture = tuner::MakeTaskFixture(task, 1);
  tuner::CandidateArgs candidate = tuner::PrepareCandidateArgs(task, *fixture, config);
  std::vector<runtime::NDArray> arrays;
  std::vector<TesseraValue> values(candidate.shapes.size());
  std::vector<int32_t> codes(candidate.shapes.size());
  for (size_t i = 0; i < candidate.shapes.size(); ++i) {
    arrays.push_back(runtime::NDArray::Empty(candidate.shapes[i], DLDataType{kDLFloat, 32, 1},
                                             DLDevice{kDLCPU, 0}));
    if (i < candidate.inputs.size()) {
      arrays.back().CopyFromBytes(candidate.inputs[i].data(), candidate.inputs[i].size() * 4);
    }
    runtime::PackedFunc::SetArg(&values[i], &codes[i], arrays[i]);
  }
  auto call = [&] {
    runtime::PackedArgs args(values.data(), codes.data(), static_cast<int>(values.size()));
    runtime::RetValue ret;
    f.CallPacked(args, &ret);
  };
  runtime::SetNumThreads(o.threads);
  call();
  const std::string mismatch = tuner::CompareOutput(
      *fixture, candidate.output_as_reference(arrays.back().Data<float>()).data(), 1e-3, 1e-3);
  // 64 MB written between calls pushes the operands out of every cache level of today's CPUs.
  std::vector<float> flush(o.cold ? 16 << 20 : 0, 1.0f);
  std::vector<double> seconds;
  for (int r = 0; r < o.repeat; ++r) {
    for (size_t i = 0; i < flush.size(); i += 16) flush[i] += 1.0f;
    const auto start = std::chrono::steady_clock::now();
    call();
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(seconds.begin(), seconds.end());
  const double gflop = op.flops / 1e9;
  std::printf("  %s, %d thread(s): best %.1f us %.1f GFLOP/s, median %.1f us %.1f GFLOP/s, %s\n",
              o.cold ? "caches flushed" : "hot", o.threads, seconds[0] * 1e6, gflop / seconds[0],
              seconds[seconds.size() / 2] * 1e6, gflop / seconds[seconds.size() / 2],
              mismatch.empty() ? "output correct" : ("WRONG: " + mismatch).c_str());
  return mismatch.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"One config of a task timed alone (the fallback with --set knobs changed).",
               "config_probe"};
  app.option_defaults()->always_capture_default();
  app.add_option("--task", o.task,
                 "workload key, e.g. 'conv2d_NCHWc.x86(1,64,56,56,64,3,3,1,1,float32)'")
      ->required();
  app.add_option("--set", o.set,
                 "knobs to change, e.g. 'tile_oc=-1,32;unroll_kw=1' (split outer -1)");
  app.add_option("--target", o.target, "target string");
  app.add_option("--repeat", o.repeat, "timed calls (best and median reported)")->check(Positive());
  app.add_option("--threads", o.threads, "threads")->check(Positive());
  app.add_flag("--cold", o.cold, "flush the caches before every call");
  app.add_option("--asm", o.asm_file, "write the assembly to this file");
  app.add_option("--ll", o.ll_file, "write the LLVM IR to this file");
  return RunCommandLine(app, argc, argv, std::cout, std::cerr, [&] { return Run(o); });
}
