// `tessera run`: runs a compiled model directory with the runtime alone; inputs and outputs are
// .npy files (random inputs when none are given), with latency and per-kernel profiles.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <random>

#include "cli/commands.h"
#include "common/command_line.h"
#include "common/error.h"
#include "common/json.h"
#include "runtime/data_type.h"
#include "runtime/graph_executor.h"
#include "runtime/npy.h"

namespace tessera {
namespace cli {
namespace {

struct RunFlags {
  std::string model;
  std::vector<std::string> inputs, outputs;
  int repeat = 1;
  bool profile = false, json = false;
};

runtime::NDArray RandomInput(const runtime::ExecTensor& info, std::mt19937& rng) {
  runtime::NDArray a = runtime::NDArray::Empty(info.shape, info.dtype, runtime::CPUDevice());
  std::uniform_real_distribution<float> dist(-1, 1);
  const int64_t n = a.NumElements();
  if (info.dtype.code == kDLFloat && info.dtype.bits == 32) {
    for (int64_t i = 0; i < n; ++i) a.Data<float>()[i] = dist(rng);
  } else {
    std::fill(a.Data<uint8_t>(), a.Data<uint8_t>() + a.NumBytes(), 0);  // indices 0, false
  }
  return a;
}

void Run(const RunFlags& flags) {
  runtime::GraphExecutor exec = runtime::GraphExecutor::LoadFromDirectory(flags.model);
  std::vector<bool> given(static_cast<size_t>(exec.NumInputs()), false);
  for (const std::string& spec : flags.inputs) {
    size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw UserError("--input '" + spec + "' is not NAME=file.npy");
    }
    int index = exec.InputIndex(spec.substr(0, eq));
    exec.SetInput(index, runtime::LoadNpy(spec.substr(eq + 1)));
    given[static_cast<size_t>(index)] = true;
  }
  std::mt19937 rng(13);
  for (int i = 0; i < exec.NumInputs(); ++i) {
    if (!given[static_cast<size_t>(i)]) exec.SetInput(i, RandomInput(exec.InputInfo(i), rng));
  }
  if (flags.outputs.size() > static_cast<size_t>(exec.NumOutputs())) {
    throw UserError("the model has " + std::to_string(exec.NumOutputs()) + " outputs but " +
                    std::to_string(flags.outputs.size()) + " --output files were given");
  }
  exec.Run();  // warm-up, and the outputs
  for (size_t i = 0; i < flags.outputs.size(); ++i) {
    runtime::SaveNpy(flags.outputs[i], exec.GetOutput(static_cast<int>(i)));
  }
  std::vector<double> ms;
  for (int r = 0; r < flags.repeat; ++r) {
    auto start = std::chrono::steady_clock::now();
    exec.Run();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
  }
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  double mean = 0;
  for (double m : ms) mean += m / static_cast<double>(ms.size());
  const double median = sorted[sorted.size() / 2], best = sorted.front();
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
      "run", "Run a compiled model directory on this machine (inputs and outputs as .npy).");
  run->add_option("model", flags->model, "directory written by `tessera compile`")->required();
  run->add_option("--input", flags->inputs, "NAME=file.npy (repeatable; others get random data)");
  run->add_option("--output", flags->outputs, "file.npy for each output, in order (repeatable)");
  run->add_option("--repeat", flags->repeat, "timed runs")->check(Positive());
  run->add_flag("--profile", flags->profile, "time every kernel call");
  run->add_flag("--json", flags->json, "one JSON object");
  run->callback([flags] { Run(*flags); });
}

}  // namespace cli
}  // namespace tessera
