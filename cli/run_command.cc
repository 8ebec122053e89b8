// `tessera run`: runs a compiled model (artifact or directory) with the runtime alone; inputs and
// outputs are .npy files (random inputs when none are given), with latency and per-kernel profiles.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "common/command_line.h"
#include "common/error.h"
#include "common/json.h"
#include "deploy/run_model.h"
#include "runtime/data_type.h"
#include "runtime/graph_executor.h"

namespace tessera {
namespace cli {
namespace {

struct RunFlags {
  std::string model;
  std::vector<std::string> inputs, outputs;
  int repeat = 1;
  bool profile = false, json = false;
};

void Run(const RunFlags& flags) {
  runtime::GraphExecutor exec = deploy::LoadModel(flags.model);
  deploy::SetInputs(exec, flags.inputs);
  exec.Run();  // warm-up, and the outputs
  deploy::SaveOutputs(exec, flags.outputs);
  const deploy::Latency latency = deploy::TimeRuns(exec, flags.repeat);
  const double mean = latency.mean_ms, median = latency.median_ms, best = latency.min_ms;
  std::vector<runtime::NodeProfile> profile;
  if (flags.profile) profile = exec.Profile(flags.repeat);
  if (flags.json) {
    Json out{{"model", flags.model},
             {"repeat", flags.repeat},
             {"mean_ms", mean},
             {"median_ms", median},
             {"min_ms", best},
             {"kernel_calls", exec.NumKernelCalls()},
             {"planned_bytes", exec.PlannedBytes()}};
    for (const auto& p : profile) {
      out["profile"].push_back(Json{{"node", p.name}, {"kernel", p.function}, {"ms", p.mean_ms}});
    }
    PrintJsonLine(out, std::cout);
    return;
  }
  std::cout << flags.model << ": " << exec.NumKernelCalls() << " kernel calls, "
            << exec.PlannedBytes() / 1e6 << " MB of activations; latency over " << flags.repeat
            << " runs: mean " << mean << " ms, median " << median << " ms, min " << best << " ms\n";
  for (int i = 0; i < exec.NumOutputs(); ++i) {
    const runtime::ExecTensor& info = exec.OutputInfo(i);
    std::cout << "output '" << info.name << "': " << runtime::DataTypeToString(info.dtype)
              << runtime::ShapeToString(info.shape)
              << (static_cast<size_t>(i) < flags.outputs.size() ? " -> " + flags.outputs[i] : "")
              << "\n";
  }
  if (!profile.empty()) {
    double total = 0;
    for (const auto& p : profile) total += p.mean_ms;
    std::cout << "profile (mean per run, slowest first):\n";
    for (const auto& p : profile) {
      std::printf("  %9.3f ms %5.1f%%  %s  [%s]\n", p.mean_ms, 100 * p.mean_ms / total,
                  p.name.c_str(), p.function.c_str());
    }
  }
}

}  // namespace

void AddRunCommand(CLI::App& app) {
  auto flags = std::make_shared<RunFlags>();
  CLI::App* run = app.add_subcommand(
      "run",
      "Run a compiled model (artifact or directory) on this machine (inputs and outputs as .npy).");
  run->add_option("model", flags->model, "model.tsr or directory written by `tessera compile`")
      ->required();
  run->add_option("--input", flags->inputs, "NAME=file.npy (repeatable; others get random data)");
  run->add_option("--output", flags->outputs, "file.npy for each output, in order (repeatable)");
  run->add_option("--repeat", flags->repeat, "timed runs")->check(Positive());
  run->add_flag("--profile", flags->profile, "time every kernel call");
  run->add_flag("--json", flags->json, "one JSON object");
  run->callback([flags] { Run(*flags); });
}

}  // namespace cli
}  // namespace tessera
