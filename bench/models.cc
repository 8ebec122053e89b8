// Whole-model latency: ResNet-18, ResNet-50 and MobileNetV2 (batch 1, fp32) compiled by Tessera
// (with the tuning log's records when --db is given, else fallback configs) against PyTorch eager
// and torch.jit.freeze in the same run, at the same thread count; also each model's compile time.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <sstream>

#include "common/command_line.h"
#include "common/error.h"
#include "common/json.h"
#include "compiler/driver/build_model.h"
#include "compiler/frontend/onnx/onnx_importer.h"
#include "runtime/graph_executor.h"
#include "tuner/log/tuning_log.h"

namespace tessera {
namespace {

struct Flags {
  int threads = 1;
  int repeat = 20;
  std::string db, target = "llvm -mcpu=native";
  std::vector<std::string> models = {"resnet18", "resnet50", "mobilenet_v2"};
  bool json = false;
};

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double MedianMs(runtime::GraphExecutor& exec, int repeat) {
  for (int i = 0; i < 3; ++i) exec.Run();
  std::vector<double> ms;
  for (int i = 0; i < repeat; ++i) {
    auto start = std::chrono::steady_clock::now();
    exec.Run();
    ms.push_back(Seconds(start) * 1e3);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

int Run(const Flags& flags) {
  char dir_template[] = "/tmp/tessera-bench-models-XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  std::string cmd = "/usr/bin/python3 bench/models_torch.py " + dir + " " +
                    std::to_string(flags.threads) + " " + std::to_string(flags.repeat);
  for (const std::string& m : flags.models) cmd += " " + m;
  cmd += " 2>/dev/null";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) throw UserError("cannot run " + cmd);
  std::unique_ptr<tuner::TuningLog> log;
  if (!flags.db.empty()) log = tuner::TuningLog::Open(flags.db, /*create=*/false);
  std::ostringstream warnings;
  char line[4096];
  if (!flags.json) {
    std::printf("%-14s %9s %11s %11s %11s %12s %12s\n", "model", "compile_s", "tessera_ms",
                "eager_ms", "frozen_ms", "vs_eager", "vs_frozen");
  }
  while (fgets(line, sizeof(line), pipe)) {
    Json torch = ParseJson(line, "models_torch.py output");
    const std::string name = torch["model"];
    auto start = std::chrono::steady_clock::now();
    ModelBuildOptions options;
    options.target = flags.target;
    options.log = log.get();
    options.warnings = &warnings;
    ModelBuild build = BuildModel(frontend::ImportOnnx(dir + "/" + name + ".onnx"), options);
    build.Save(dir + "/" + name);
    const double compile_s = Seconds(start);
    runtime::GraphExecutor exec = runtime::GraphExecutor::LoadFromDirectory(dir + "/" + name);
    const double ms = MedianMs(exec, flags.repeat);
    const double eager = torch["eager_ms"], frozen = torch["frozen_ms"];
    if (flags.json) {
      PrintJsonLine(Json{{"model", name},
                         {"threads", flags.threads},
                         {"compile_s", compile_s},
                         {"tessera_ms", ms},
                         {"eager_ms", eager},
                         {"frozen_ms", frozen},
                         {"ratio_vs_eager", ms / eager},
                         {"ratio_vs_frozen", ms / frozen},
                         {"coverage", build.CoverageLine()}},
                    std::cout);
    } else {
      std::printf("%-14s %9.2f %11.2f %11.2f %11.2f %12.2f %12.2f\n", name.c_str(), compile_s, ms,
                  eager, frozen, ms / eager, ms / frozen);
      std::printf("  %s\n", build.CoverageLine().substr(0, 100).c_str());
    }
  }
  int rc = pclose(pipe);
  if (rc != 0) throw UserError("bench/models_torch.py failed (status " + std::to_string(rc) + ")");
  return 0;
}

}  // namespace
}  // namespace tessera

int main(int argc, char** argv) {
  tessera::Flags flags;
  CLI::App app{
      "Batch-1 fp32 latency of whole models: Tessera against PyTorch eager and frozen "
      "(ratios are Tessera / PyTorch; smaller is better).",
      "models"};
  app.add_option("--threads", flags.threads, "threads for both (TESSERA_NUM_THREADS, torch)")
      ->check(tessera::Positive());
  app.add_option("--repeat", flags.repeat, "timed runs per model (median)")
      ->check(tessera::Positive());
  app.add_option("--db", flags.db, "tuning log whose best records to use");
  app.add_option("--target", flags.target, "target string");
  app.add_option("--models", flags.models, "torchvision model names");
  app.add_flag("--json", flags.json, "one JSON line per model");
  return tessera::RunCommandLine(app, argc, argv, std::cout, std::cerr, [&] {
    // The runtime's pool reads this once, when the first parallel kernel runs.
    setenv("TESSERA_NUM_THREADS", std::to_string(flags.threads).c_str(), 1);
    return tessera::Run(flags);
  });
}
