#include "cli/tune_check.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <utility>

#include "common/file.h"
#include "compiler/driver/build_model.h"
#include "compiler/driver/model_artifact.h"
#include "compiler/driver/model_plan.h"
#include "compiler/frontend/onnx/onnx_importer.h"
#include "compiler/graph/graph.h"
#include "deploy/run_model.h"
#include "records/tuning_log.h"
#include "tuner/tune/apply_history.h"

namespace tessera {
namespace cli {
namespace {

// The log's configs, remembering the cost of every record handed out, so that a kernel's time
// in the model can be set against the record it runs.
class RememberingConfigSource : public ConfigSource {
 public:
  explicit RememberingConfigSource(const records::RecordSource* log) : log_(log) {}

  ChosenConfig Choose(const task::Task& task, std::ostream& warnings,
                      const ConfigPreference& preference) const override {
    ChosenConfig chosen = log_.Choose(task, warnings, preference);
    if (chosen.record) {
      costs_[Key(task.workload_key(), chosen.config.ToString())] =
          records::MeanCost(*chosen.record);
    }
    return chosen;
  }

  // The cost of the record of `config` (seconds), 0 when none was handed out.
  double CostOf(const std::string& workload_key, const std::string& config) const {
    auto it = costs_.find(Key(workload_key, config));
    return it == costs_.end() ? 0 : it->second;
  }

 private:
  static std::string Key(const std::string& workload, const std::string& config) {
    return workload + "\n" + config;
  }
  tuner::LogConfigSource log_;
  mutable std::map<std::string, double> costs_;
};

// One build, run: its template configs, latency and kernel profile.
struct RunBuild {
  std::vector<KernelConfig> configs;
  double median_ms = 0;
  int threads = 1;
  std::vector<runtime::NodeProfile> profile;
};

// `graph` (the imported model) built with `configs`, saved as `artifact`, loaded and run.
RunBuild BuildAndRun(graph::Graph graph, const TuneCheckOptions& options,
                     const ConfigSource& configs, const std::string& artifact) {
  ModelBuildOptions build_options;
  build_options.target = options.target;
  build_options.configs = &configs;
  std::ostringstream notices;  // fallbacks were announced while tuning
  build_options.warnings = &notices;
  ModelBuild build = EmitModel(PlanModel(std::move(graph), build_options), build_options);
  SaveModelArtifact(build, options.target, artifact);
  deploy::LoadedModel model = deploy::LoadModel(artifact);
  RunBuild run;
  run.configs = build.configs;
  run.threads = deploy::UseModelThreads(model.header);
  deploy::SetInputs(model.executor, {});
  model.executor.Run();  // warm-up
  run.median_ms = deploy::TimeRuns(model.executor, options.repeat).median_ms;
  run.profile = model.executor.Profile(options.repeat);
  return run;
}

// The time per run of the template kernel computing `node` (its fused group is named after it;
// an epilogue kernel of its own is not the template's).
double KernelMs(const std::vector<runtime::NodeProfile>& profile, const std::string& node) {
  double ms = 0;
  for (const runtime::NodeProfile& p : profile) {
    const bool named = p.name == node || p.name.rfind(node + "+", 0) == 0;
    if (named && p.function.find("epilogue") == std::string::npos) ms += p.mean_ms;
  }
  return ms;
}

std::string Ms(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3g ms", ms);
  return buf;
}

}  // namespace

TuneCheck CheckTunedModel(const TuneCheckOptions& options) {
  const TempDir dir("tessera-tune-check");
  const RememberingConfigSource tuned_configs(options.log);
  const tuner::LogConfigSource untuned_configs(nullptr);
  const graph::Graph model =
      frontend::ImportOnnx(options.model, frontend::ImportOptionsWithShapes(options.input_shapes));
  const RunBuild tuned = BuildAndRun(model, options, tuned_configs, dir.path() + "/tuned.tsr");
  const RunBuild untuned =
      BuildAndRun(model, options, untuned_configs, dir.path() + "/untuned.tsr");
  TuneCheck check;
  check.threads = tuned.threads;
  check.tuned_ms = tuned.median_ms;
  check.untuned_ms = untuned.median_ms;
  check.estimated_ms = options.estimated_s * 1e3;
  for (const KernelConfig& c : tuned.configs) {
    KernelCheck k;
    k.node = c.node;
    k.workload_key = c.workload_key;
    k.tuned_ms = KernelMs(tuned.profile, c.node);
    k.untuned_ms = KernelMs(untuned.profile, c.node);
    if (c.source == "record") k.record_ms = tuned_configs.CostOf(c.workload_key, c.config) * 1e3;
    check.template_ms += k.tuned_ms;
    check.kernels.push_back(k);
  }
  return check;
}

void PrintTuneCheck(const TuneCheck& check, std::ostream& out) {
  char ratio[32];
  std::snprintf(ratio, sizeof(ratio), "%.2f",
                check.untuned_ms > 0 ? check.tuned_ms / check.untuned_ms : 0.0);
  out << "check: tuned build " << Ms(check.tuned_ms) << ", untuned " << Ms(check.untuned_ms)
      << " (tuned/untuned " << ratio << "x) at " << check.threads
      << (check.threads == 1 ? " thread" : " threads") << "\n";
  out << "check: template kernels " << Ms(check.template_ms) << " per run in the tuned build";
  if (std::isfinite(check.estimated_ms) && check.estimated_ms > 0) {
    const double off = check.template_ms / check.estimated_ms - 1;
    char share[32];
    std::snprintf(share, sizeof(share), "%+.0f%%", off * 100);
    out << ", estimate " << Ms(check.estimated_ms) << " (measured " << share << ")";
    if (std::fabs(off) > TuneCheck::kEstimateTolerance) {
      out << ": more than " << TuneCheck::kEstimateTolerance * 100
          << "% off; the records were measured outside the model's conditions (layouts, fused "
             "epilogues, caches) or do not cover it";
    }
  } else {
    out << " (no estimate: not every task was measured)";
  }
  out << "\n";
  for (const KernelCheck& k : check.kernels) {
    if (k.record_ms > 0 && k.tuned_ms > TuneCheck::kRecordTolerance * k.record_ms) {
      out << "check: slower in the model than its record: " << k.node << " " << k.workload_key
          << ": " << Ms(k.tuned_ms) << " per run, record " << Ms(k.record_ms) << "\n";
    }
  }
  for (const KernelCheck& k : check.kernels) {
    if (k.untuned_ms > 0 && k.tuned_ms > TuneCheck::kUntunedTolerance * k.untuned_ms) {
      out << "check: slower tuned than untuned: " << k.node << " " << k.workload_key << ": "
          << Ms(k.tuned_ms) << " tuned, " << Ms(k.untuned_ms) << " untuned\n";
    }
  }
  if (check.tuned_ms > TuneCheck::kUntunedTolerance * check.untuned_ms) {
    out << "warning: the tuned build runs more than 10% slower than the untuned one ("
        << Ms(check.tuned_ms) << " against " << Ms(check.untuned_ms)
        << "); `tessera compile` without --db builds the untuned one\n";
  }
}

}  // namespace cli
}  // namespace tessera
