// `tessera run`: runs a compiled model (artifact or directory) with the runtime alone, or an
// artifact on a fleet device (--rpc-tracker); inputs and outputs are .npy files (random inputs when
// none are given), with latency and per-kernel profiles.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/remote_run.h"
#include "common/command_line.h"
#include "common/error.h"
#include "common/file.h"
#include "common/json.h"
#include "deploy/run_model.h"
#include "report/profile_report.h"
#include "runtime/data_type.h"
#include "runtime/graph_executor.h"
#include "runtime/npy.h"

namespace tessera {
namespace cli {
namespace {

struct RunFlags {
  std::string model;
  std::vector<std::string> inputs, outputs;
  int repeat = 1, threads = 0;
  int64_t batch = 0;  // random inputs' batch, for a model of batch buckets
  bool profile = false, json = false;
  std::string report, compare;  // --report R.html [--compare B.tsr]
  FleetDevice device;
};

void PrintOutputs(const std::vector<runtime::ExecTensor>& outputs,
                  const std::vector<std::string>& files) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::cout << "output '" << outputs[i].name
              << "': " << runtime::DataTypeToString(outputs[i].dtype)
              << runtime::ShapeToString(outputs[i].shape)
              << (i < files.size() ? " -> " + files[i] : "") << "\n";
  }
}

void RunRemotely(const RunFlags& flags) {
  if (flags.device.tracker.empty() || flags.device.key.empty()) {
    throw UserError(
        "tessera run: --rpc-tracker HOST:PORT and --rpc-key KEY go together (run on a fleet "
        "device of that key); leave both out to run on this machine");
  }
  if (flags.profile) throw UserError("tessera run: --profile is for runs on this machine");
  const RemoteRun run = RunOnFleet(flags.model, flags.device, flags.inputs, flags.repeat);
  if (flags.outputs.size() > run.outputs.size()) {
    throw UserError("the model has " + std::to_string(run.outputs.size()) + " outputs but " +
                    std::to_string(flags.outputs.size()) + " --output files were given");
  }
  for (size_t i = 0; i < flags.outputs.size(); ++i) {
    runtime::SaveNpy(flags.outputs[i], run.output_arrays[i]);
  }
  const deploy::Latency& latency = run.latency;
  if (flags.json) {
    Json out{{"model", flags.model},
             {"device", run.device},
             {"target", run.target},
             {"repeat", flags.repeat},
             {"threads", run.threads},
             {"load_ms", run.load_ms},
             {"first_run_ms", run.first_run_ms},
             {"mean_ms", latency.mean_ms},
             {"median_ms", latency.median_ms},
             {"min_ms", latency.min_ms}};
    PrintJsonLine(out, std::cout);
    return;
  }
  std::cout << flags.model << " on device " << run.device << " (target '" << run.target
            << "'): load " << run.load_ms << " ms, first run " << run.first_run_ms
            << " ms; device latency over " << flags.repeat << " runs at " << run.threads
            << (run.threads == 1 ? " thread" : " threads") << ": mean " << latency.mean_ms
            << " ms, median " << latency.median_ms << " ms, min " << latency.min_ms << " ms\n";
  PrintOutputs(run.outputs, flags.outputs);
}

// Profiles one build with the run's inputs, for the report.
report::ProfiledModel ProfileBuild(const std::string& path, const RunFlags& flags) {
  deploy::LoadedModel model = deploy::LoadModel(path);
  deploy::BatchRun run(model);
  report::ProfiledModel profiled;
  profiled.label = path;
  profiled.target = model.header.target;
  profiled.threads = deploy::UseModelThreads(model.header, flags.threads);
  deploy::SetInputs(run, flags.inputs, flags.batch);
  run.Run();
  profiled.mean_ms = deploy::TimeRuns(run, flags.repeat).mean_ms;
  profiled.kernels = run.executor().Profile(flags.repeat);
  return profiled;
}

// `--report`: this model's profile, and the `--compare` build's beside it, as one HTML file.
void WriteProfileReport(const RunFlags& flags, report::ProfiledModel first) {
  std::vector<report::ProfiledModel> models = {std::move(first)};
  if (!flags.compare.empty()) models.push_back(ProfileBuild(flags.compare, flags));
  WriteFile(flags.report, report::ProfileReportHtml(models), "--report");
  std::cerr << "wrote the profile report " << flags.report
            << (flags.compare.empty() ? "" : " (against " + flags.compare + ")") << "\n";
}

void Run(const RunFlags& flags) {
  if (!flags.device.tracker.empty() || !flags.device.key.empty()) return RunRemotely(flags);
  if (!flags.report.empty() && !flags.profile) {
    throw UserError("tessera run: --report writes the --profile; add --profile");
  }
  deploy::LoadedModel model = deploy::LoadModel(flags.model);
  const int threads = deploy::UseModelThreads(model.header, flags.threads);
  deploy::BatchRun run(model);
  deploy::SetInputs(run, flags.inputs, flags.batch);
  run.Run();  // warm-up, and the outputs
  deploy::SaveOutputs(run, flags.outputs);
  const deploy::Latency latency = deploy::TimeRuns(run, flags.repeat);
  const double mean = latency.mean_ms, median = latency.median_ms, best = latency.min_ms;
  // A batch of buckets profiles the bucket that runs its first rows.
  runtime::GraphExecutor& exec = run.executor();
  std::vector<runtime::NodeProfile> profile;
  if (flags.profile) profile = exec.Profile(flags.repeat);
  if (!flags.report.empty()) {
    WriteProfileReport(flags, {flags.model, model.header.target, threads, mean, profile});
  }
  if (flags.json) {
    Json out{{"model", flags.model},
             {"repeat", flags.repeat},
             {"threads", threads},
             {"mean_ms", mean},
             {"median_ms", median},
             {"min_ms", best},
             {"kernel_calls", exec.NumKernelCalls()},
             {"planned_bytes", exec.PlannedBytes()}};
    if (run.batched()) {
      out["batch"] = run.batch();
      out["bucket"] = run.BucketFor(run.batch());
      out["bucket_runs"] = run.Runs();
    }
    for (const auto& p : profile) {
      out["profile"].push_back(Json{{"node", p.name},
                                    {"kernel", p.function},
                                    {"ms", p.mean_ms},
                                    {"workload", p.workload},
                                    {"config_source", p.source},
                                    {"flops", p.flops}});
    }
    PrintJsonLine(out, std::cout);
    return;
  }
  std::cout << flags.model << ": " << exec.NumKernelCalls() << " kernel calls, "
            << exec.PlannedBytes() / 1e6 << " MB of activations, " << threads
            << (threads == 1 ? " thread" : " threads") << deploy::BatchText(run)
            << "; latency over " << flags.repeat << " runs: mean " << mean << " ms, median "
            << median << " ms, min " << best << " ms\n";
  PrintOutputs(run.OutputsAt(run.batch()), flags.outputs);
  if (!profile.empty()) {
    double total = 0;
    for (const auto& p : profile) total += p.mean_ms;
    std::cout << "profile (mean per run at " << threads << (threads == 1 ? " thread" : " threads")
              << (run.batched() ? ", bucket " + std::to_string(run.BucketFor(run.batch())) : "")
              << ", slowest first):\n";
    for (const auto& p : profile) {
      std::printf("  %9.3f ms %5.1f%%  %s  [%s]", p.mean_ms, 100 * p.mean_ms / total,
                  p.name.c_str(), p.function.c_str());
      if (!p.workload.empty()) {
        std::printf("  %s, %s, %.1f GFLOP/s", p.workload.c_str(), p.source.c_str(),
                    p.mean_ms > 0 ? p.flops / (p.mean_ms * 1e6) : 0.0);
      }
      std::printf("\n");
    }
  }
}

}  // namespace

void AddRunCommand(CLI::App& app) {
  auto flags = std::make_shared<RunFlags>();
  CLI::App* run = app.add_subcommand(
      "run",
      "Run a compiled model (artifact or directory) on this machine, or an artifact on a fleet "
      "device (inputs and outputs as .npy).");
  run->add_option("model", flags->model, "model.tsr or directory written by `tessera compile`")
      ->required();
  run->add_option("--input", flags->inputs, "NAME=file.npy (repeatable; others get random data)");
  run->add_option("--output", flags->outputs, "file.npy for each output, in order (repeatable)");
  run->add_option("--repeat", flags->repeat, "timed runs")->check(Positive());
  run->add_option("--threads", flags->threads,
                  "threads to run with (default: TESSERA_NUM_THREADS, else the -num-threads of "
                  "the artifact's target, else every core)")
      ->check(Positive());
  run->add_option("--batch", flags->batch,
                  "batch of the random inputs of a model compiled with --batch buckets "
                  "(default: the batch of the --input files, else the smallest bucket)")
      ->check(Positive());
  run->add_flag("--profile", flags->profile, "time every kernel call");
  CLI::Option* report =
      run->add_option("--report", flags->report,
                      "with --profile: write the profile as a self-contained HTML page (bars per "
                      "kernel call, template, config source, GFLOP/s)");
  run->add_option("--compare", flags->compare,
                  "with --report: profile this other build of the model too (same inputs) and "
                  "draw both, such as untuned against tuned")
      ->needs(report)
      ->check(CLI::ExistingPath);
  run->add_flag("--json", flags->json, "one JSON object");
  run->add_option("--rpc-tracker", flags->device.tracker,
                  "run the artifact on a fleet device of this tracker")
      ->check(HostPort());
  run->add_option("--rpc-key", flags->device.key, "device key of the fleet device to run on");
  run->add_option("--rpc-token-file,--token-file", flags->device.token_file,
                  "the fleet's shared token")
      ->check(CLI::ExistingFile);
  run->callback([flags] { Run(*flags); });
}

}  // namespace cli
}  // namespace tessera
