// `tessera-run`: runs a deployable artifact with the runtime alone (no compiler, no LLVM, no
// gRPC): inputs and outputs as .npy files, latency over --repeat runs. What ships to a board.
#include <chrono>
#include <cstdio>
#include <iostream>

#include "common/command_line.h"
#include "deploy/artifact.h"
#include "deploy/batch_run.h"
#include "deploy/run_model.h"
#include "runtime/data_type.h"

namespace {

struct Flags {
  std::string model;
  std::vector<std::string> inputs, outputs;
  int repeat = 1;
  int threads = 0;
  int64_t batch = 0;
};

int Run(const Flags& flags) {
  using namespace tessera;
  auto start = std::chrono::steady_clock::now();
  deploy::LoadedModel model = deploy::LoadArtifact(flags.model);
  const double load_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const int threads = deploy::UseModelThreads(model.header, flags.threads);
  deploy::BatchRun run(model);
  deploy::SetInputs(run, flags.inputs, flags.batch);
  start = std::chrono::steady_clock::now();
  run.Run();  // the first run: page faults, thread pool start-up
  const double first_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  deploy::SaveOutputs(run, flags.outputs);
  const deploy::Latency latency = deploy::TimeRuns(run, flags.repeat);
  std::printf(
      "%s: target '%s', %zu kernel calls, %d %s%s; load %.2f ms, first run %.2f ms; latency over "
      "%d runs: mean %.3f ms, median %.3f ms, min %.3f ms\n",
      flags.model.c_str(), model.header.target.c_str(), run.executor().NumKernelCalls(), threads,
      threads == 1 ? "thread" : "threads", deploy::BatchText(run).c_str(), load_ms, first_ms,
      flags.repeat, latency.mean_ms, latency.median_ms, latency.min_ms);
  const std::vector<runtime::ExecTensor> outputs = run.OutputsAt(run.batch());
  for (int i = 0; i < run.NumOutputs(); ++i) {
    const runtime::ExecTensor& info = outputs[static_cast<size_t>(i)];
    std::printf("output '%s': %s%s%s\n", info.name.c_str(),
                runtime::DataTypeToString(info.dtype).c_str(),
                runtime::ShapeToString(info.shape).c_str(),
                static_cast<size_t>(i) < flags.outputs.size()
                    ? (" -> " + flags.outputs[static_cast<size_t>(i)]).c_str()
                    : "");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  CLI::App app("Run a Tessera model artifact (model.tsr) with the runtime alone.", "tessera-run");
  tessera::AddVersionFlag(app, "reads artifact formats 1 to " +
                                   std::to_string(tessera::deploy::kArtifactFormatVersion));
  app.add_option("model", flags.model, "the artifact written by `tessera compile -o model.tsr`")
      ->required();
  app.add_option("--input", flags.inputs, "NAME=file.npy (repeatable; others get random data)");
  app.add_option("--output", flags.outputs, "file.npy for each output, in order (repeatable)");
  app.add_option("--repeat", flags.repeat, "timed runs")->check(tessera::Positive());
  app.add_option("--threads", flags.threads,
                 "threads to run with (default: TESSERA_NUM_THREADS, else the -num-threads of the "
                 "artifact's target, else every core)")
      ->check(tessera::Positive());
  app.add_option("--batch", flags.batch,
                 "batch of the random inputs of a model compiled with --batch buckets (default: "
                 "the batch of the --input files, else the smallest bucket)")
      ->check(tessera::Positive());
  return tessera::RunCommandLine(app, argc, argv, std::cout, std::cerr,
                                 [&flags] { return Run(flags); });
}
