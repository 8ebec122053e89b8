#include "tuner/tune/tune_check.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "common/file.h"
#include "compiler/driver/build_model.h"
#include "compiler/driver/model_artifact.h"
#include "compiler/driver/model_plan.h"
#include "compiler/frontend/onnx/onnx_importer.h"
#include "compiler/graph/graph.h"
#include "compiler/space/config_proto.h"
#include "deploy/run_model.h"
#include "records/tuning_log.h"
#include "runtime/exec_graph.h"
#include "tuner/tune/apply_history.h"
#include "tuner/tune/tune_task.h"

namespace tessera {
namespace tuner {
namespace {

// The log's configs (none: every fallback), remembering each config handed out as the skeleton
// of a record of it, with the cost of the record it came from, so that a kernel's time in the
// model can be set against that record and written down as a record measured in the model.
class RememberingConfigSource : public ConfigSource {
 public:
  explicit RememberingConfigSource(const records::RecordSource* log) : log_(log) {}

  ChosenConfig Choose(const task::Task& task, std::ostream& warnings,
                      const ConfigPreference& preference) const override {
    ChosenConfig chosen = log_.Choose(task, warnings, preference);
    Handed& handed = handed_[Key(task.workload_key(), chosen.config.ToString())];
    handed.record.set_workload_key(task.workload_key());
    handed.record.set_target(task.target());
    handed.record.set_config_index(chosen.config.index());
    *handed.record.mutable_config() = space::ConfigToProto(chosen.config);
    handed.record.set_template_version(task.templ().version);
    if (chosen.record) handed.cost_s = records::MeanCost(*chosen.record);
    return chosen;
  }

  // The cost of the record of `config` (seconds), 0 when it was a fallback or not handed out.
  double CostOf(const std::string& workload_key, const std::string& config) const {
    auto it = handed_.find(Key(workload_key, config));
    return it == handed_.end() ? 0 : it->second.cost_s;
  }

  // A record of `config` without costs, null when it was not handed out.
  const tuning::MeasureRecord* SkeletonOf(const std::string& workload_key,
                                          const std::string& config) const {
    auto it = handed_.find(Key(workload_key, config));
    return it == handed_.end() ? nullptr : &it->second.record;
  }

 private:
  struct Handed {
    tuning::MeasureRecord record;
    double cost_s = 0;
  };
  static std::string Key(const std::string& workload, const std::string& config) {
    return workload + "\n" + config;
  }
  LogConfigSource log_;
  mutable std::map<std::string, Handed> handed_;
};

// One build, run: its template configs, latency and kernel profile.
struct RunBuild {
  std::vector<KernelConfig> configs;
  double median_ms = 0;
  int threads = 1;
  std::vector<runtime::NodeProfile> profile;
  runtime::ExecGraph graph;
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
  run.graph = build.graph;
  run.threads = deploy::UseModelThreads(model.header);
  deploy::SetInputs(model.executor, {});
  model.executor.Run();  // warm-up
  run.median_ms = deploy::TimeRuns(model.executor, options.repeat).median_ms;
  run.profile = model.executor.Profile(options.repeat);
  return run;
}

// The time per run of the template kernel computing `node` (its fused group is named after it;
// an epilogue kernel of its own is not the template's).
// True when the kernel call `name` computes the template node `node`: its fused group is named
// after it ("Conv_3" or "Conv_3+Relu"; not "Conv_30").
bool Computes(const std::string& name, const std::string& node) {
  return name == node || name.rfind(node + "+", 0) == 0;
}

double KernelMs(const std::vector<runtime::NodeProfile>& profile, const std::string& node) {
  double ms = 0;
  for (const runtime::NodeProfile& p : profile) {
    const bool named = Computes(p.name, node);
    if (named && p.function.find("epilogue") == std::string::npos) ms += p.mean_ms;
  }
  return ms;
}

// The template node whose group exec node `name` computes ("Conv_3" for "Conv_3+Relu"), or "".
std::string OwnerOf(const std::string& name, const std::vector<KernelConfig>& configs) {
  for (const KernelConfig& c : configs) {
    if (Computes(name, c.node)) return c.node;
  }
  return "";
}

// The time per run of the kernels around each template kernel that are no template's own: the
// layout changes, slices, concatenations and shuffles that read what it writes, whose speed its
// config's blocks decide. Each such kernel's time is shared among the template kernels it reads
// from, through other such kernels. By template node.
std::map<std::string, double> NeighborMs(const RunBuild& run) {
  std::map<std::string, double> ms_of;  // exec node name and function -> ms per run
  for (const runtime::NodeProfile& p : run.profile) ms_of[p.name + "\n" + p.function] += p.mean_ms;
  const std::vector<runtime::ExecNode>& nodes = run.graph.nodes;
  std::map<int, size_t> producer;  // tensor id -> exec node
  std::vector<std::string> owner(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (int t : nodes[i].outputs) producer[t] = i;
    owner[i] = OwnerOf(nodes[i].name, run.configs);
  }
  std::map<std::string, double> neighbor;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!owner[i].empty()) continue;
    std::set<std::string> owners;  // template kernels it reads from, through non-template ones
    std::vector<size_t> todo = {i};
    std::set<size_t> seen;
    while (!todo.empty()) {
      const size_t n = todo.back();
      todo.pop_back();
      for (int t : nodes[n].inputs) {
        auto p = producer.find(t);
        if (p == producer.end() || !seen.insert(p->second).second) continue;
        if (owner[p->second].empty()) {
          todo.push_back(p->second);
        } else {
          owners.insert(owner[p->second]);
        }
      }
    }
    const double ms = ms_of[nodes[i].name + "\n" + nodes[i].function];
    for (const std::string& o : owners) neighbor[o] += ms / owners.size();
  }
  return neighbor;
}

std::string Ms(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3g ms", ms);
  return buf;
}

// Records measured in the model for every workload whose tuned kernels run slower than its
// untuned ones by more than `kUntunedTolerance`: both configs, one cost per kernel, so that the
// next build takes the faster (tuner/tune/apply_history.h lets them stand for the task records).
std::vector<KeptChoice> KeepFasterConfigs(const std::vector<KernelCheck>& kernels,
                                          const RememberingConfigSource& tuned,
                                          const RememberingConfigSource& untuned) {
  struct Pair {
    tuning::MeasureRecord tuned, untuned;
    double tuned_ms = 0, untuned_ms = 0;
  };
  std::map<std::string, Pair> pairs;  // by workload, tuned config and untuned config
  std::vector<std::string> order;
  for (const KernelCheck& k : kernels) {
    if (k.untuned_ms <= 0 || k.tuned_ms <= 0) continue;
    if (k.workload_key == k.untuned_workload_key && k.tuned_config == k.untuned_config) continue;
    const tuning::MeasureRecord* tuned_record = tuned.SkeletonOf(k.workload_key, k.tuned_config);
    const tuning::MeasureRecord* untuned_record =
        untuned.SkeletonOf(k.untuned_workload_key, k.untuned_config);
    if (!tuned_record || !untuned_record) continue;
    const std::string key = k.workload_key + "\n" + k.tuned_config + "\n" + k.untuned_workload_key +
                            "\n" + k.untuned_config;
    auto [it, fresh] = pairs.try_emplace(key, Pair{*tuned_record, *untuned_record});
    if (fresh) order.push_back(key);
    // A config is what the model runs because of it: its kernel and the kernels around it.
    const double tuned_ms = k.tuned_ms + k.tuned_around_ms;
    const double untuned_ms = k.untuned_ms + k.untuned_around_ms;
    it->second.tuned.add_costs(tuned_ms * 1e-3);
    it->second.untuned.add_costs(untuned_ms * 1e-3);
    it->second.tuned_ms += tuned_ms;
    it->second.untuned_ms += untuned_ms;
  }
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::vector<KeptChoice> out;
  for (const std::string& key : order) {
    Pair& pair = pairs.at(key);
    if (pair.tuned_ms <= TuneCheck::kUntunedTolerance * pair.untuned_ms) continue;
    for (tuning::MeasureRecord* r : {&pair.tuned, &pair.untuned}) {
      r->set_device_key("local");
      r->set_timestamp(now);
      r->set_tuner_version(kTunerVersion);
      r->set_in_model(true);
    }
    out.push_back({pair.tuned, pair.untuned});
  }
  return out;
}

}  // namespace

namespace {

// The kernels of `tuned` matched with `untuned`'s by node. Kernels are paired by the configs
// their sources handed out: a config adapted to its producer's block is adapted the same way in
// the next build.
std::vector<KernelCheck> MatchKernels(const RunBuild& tuned, const RunBuild& untuned,
                                      const RememberingConfigSource& tuned_configs) {
  std::map<std::string, KernelConfig> untuned_config;  // by node
  for (const KernelConfig& c : untuned.configs) untuned_config[c.node] = c;
  std::map<std::string, double> tuned_neighbors = NeighborMs(tuned);
  std::map<std::string, double> untuned_neighbors = NeighborMs(untuned);
  std::vector<KernelCheck> kernels;
  for (const KernelConfig& c : tuned.configs) {
    KernelCheck k;
    k.node = c.node;
    k.workload_key = c.workload_key;
    k.tuned_config = c.chosen;
    k.untuned_workload_key = untuned_config[c.node].workload_key;
    k.untuned_config = untuned_config[c.node].chosen;
    k.tuned_ms = KernelMs(tuned.profile, c.node);
    k.untuned_ms = KernelMs(untuned.profile, c.node);
    k.tuned_around_ms = tuned_neighbors[c.node];
    k.untuned_around_ms = untuned_neighbors[c.node];
    if (c.source.rfind("record", 0) == 0) {
      k.record_ms = tuned_configs.CostOf(c.workload_key, c.chosen) * 1e3;
    }
    kernels.push_back(k);
  }
  return kernels;
}

}  // namespace

TuneCheck CheckTunedModel(const TuneCheckOptions& options, const KeepRecords& keep) {
  const TempDir dir("tessera-tune-check");
  frontend::OnnxImportOptions import = frontend::ImportOptionsWithShapes(options.input_shapes);
  import.batch = options.batch;
  import.batch_dim = options.batch_dim;
  std::ostringstream said_before;  // the tuning run's import said the notes already
  import.notes = &said_before;
  const graph::Graph model = frontend::ImportOnnx(options.model, import);
  const RememberingConfigSource untuned_configs(nullptr);
  const RunBuild untuned =
      BuildAndRun(model, options, untuned_configs, dir.path() + "/untuned.tsr");
  TuneCheck check;
  check.untuned_ms = untuned.median_ms;
  check.estimated_ms = options.estimated_s * 1e3;
  // Keeping one choice can bring another record forward that the model runs no faster: each
  // round builds with what the log says now, until a round keeps nothing.
  for (int round = 0; round <= TuneCheck::kKeepRounds; ++round) {
    const RememberingConfigSource tuned_configs(options.log);
    const RunBuild tuned = BuildAndRun(model, options, tuned_configs, dir.path() + "/tuned.tsr");
    std::vector<KernelCheck> kernels = MatchKernels(tuned, untuned, tuned_configs);
    if (round == 0) {
      check.threads = tuned.threads;
      check.tuned_ms = tuned.median_ms;
      check.kernels = kernels;
      const std::set<std::string> estimated(options.estimated_workloads.begin(),
                                            options.estimated_workloads.end());
      for (const KernelCheck& k : kernels) {
        check.template_ms += k.tuned_ms;
        if (estimated.empty() || estimated.count(k.workload_key)) {
          check.estimated_part_ms += k.tuned_ms;
        } else {
          ++check.unestimated_kernels;
        }
      }
    } else {
      check.kept_ms = tuned.median_ms;
      check.keep_rounds = round;
    }
    if (!keep || round == TuneCheck::kKeepRounds) break;
    const std::vector<KeptChoice> kept = KeepFasterConfigs(kernels, tuned_configs, untuned_configs);
    if (kept.empty()) break;
    std::vector<tuning::MeasureRecord> records;
    for (const KeptChoice& choice : kept) {
      records.push_back(choice.tuned);
      records.push_back(choice.untuned);
    }
    keep(records);
    check.kept.insert(check.kept.end(), kept.begin(), kept.end());
  }
  return check;
}

std::vector<TuneCheckOptions> BuildsToCheck(const TuneCheckOptions& model,
                                            const std::vector<int64_t>& batches) {
  if (batches.empty()) return {model};
  std::vector<TuneCheckOptions> builds;
  for (int64_t batch : batches) {
    builds.push_back(model);
    builds.back().batch = batch;
    builds.back().estimated_s = 0;
  }
  return builds;
}

TuneCheck CheckAndKeep(TuneCheckOptions options, records::TuningLog* log) {
  options.log = log;
  return CheckTunedModel(options, [log](const std::vector<tuning::MeasureRecord>& records) {
    log->AppendBatch(records);
  });
}

void PrintTuneCheck(const TuneCheck& check, std::ostream& out) {
  char ratio[32];
  std::snprintf(ratio, sizeof(ratio), "%.2f",
                check.untuned_ms > 0 ? check.tuned_ms / check.untuned_ms : 0.0);
  out << "check: tuned build " << Ms(check.tuned_ms) << ", untuned " << Ms(check.untuned_ms)
      << " (tuned/untuned " << ratio << "x) at " << check.threads
      << (check.threads == 1 ? " thread" : " threads") << "\n";
  out << "check: template kernels " << Ms(check.template_ms) << " per run in the tuned build";
  if (check.unestimated_kernels > 0) {
    out << ", " << Ms(check.estimated_part_ms) << " of them of the tasks the estimate counts ("
        << check.unestimated_kernels << " kernels of tasks without a record left out)";
  }
  if (std::isfinite(check.estimated_ms) && check.estimated_ms > 0) {
    const double off = check.estimated_part_ms / check.estimated_ms - 1;
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
    const double tuned = k.tuned_ms + k.tuned_around_ms;
    const double untuned = k.untuned_ms + k.untuned_around_ms;
    if (k.untuned_ms > 0 && tuned > TuneCheck::kUntunedTolerance * untuned) {
      out << "check: slower tuned than untuned: " << k.node << " " << k.workload_key << ": "
          << Ms(tuned) << " tuned, " << Ms(untuned) << " untuned";
      if (k.tuned_around_ms > 0 || k.untuned_around_ms > 0) {
        out << " (with the kernels around it: " << Ms(k.tuned_around_ms) << " and "
            << Ms(k.untuned_around_ms) << ")";
      }
      out << "\n";
    }
  }
  for (const KeptChoice& choice : check.kept) {
    const tuning::MeasureRecord& tuned = choice.tuned;
    const tuning::MeasureRecord& untuned = choice.untuned;
    out << "check: keeping the untuned choice over " << tuned.workload_key() << ": "
        << Ms(records::MeanCost(tuned) * 1e3) << " tuned, " << Ms(records::MeanCost(untuned) * 1e3)
        << " untuned (" << untuned.workload_key()
        << ") per kernel in the model; both written to the log as measured in the model, and "
           "builds take the faster\n";
  }
  double final_ms = check.tuned_ms;
  if (check.kept_ms > 0) {
    final_ms = check.kept_ms;
    std::snprintf(ratio, sizeof(ratio), "%.2f", check.kept_ms / check.untuned_ms);
    out << "check: with the kept configs the tuned build runs " << Ms(check.kept_ms)
        << " (tuned/untuned " << ratio << "x) after " << check.keep_rounds
        << (check.keep_rounds == 1 ? " round" : " rounds") << " of keeping\n";
  }
  if (final_ms > TuneCheck::kUntunedTolerance * check.untuned_ms) {
    out << "warning: the tuned build runs more than 10% slower than the untuned one ("
        << Ms(final_ms) << " against " << Ms(check.untuned_ms)
        << "); `tessera compile` without --db builds the untuned one\n";
  }
}

}  // namespace tuner
}  // namespace tessera
