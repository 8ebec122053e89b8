// `tessera tune`: tunes one task, or every tunable task of an ONNX model, locally or on the fleet
// and records every measurement in the tuning log.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands.h"
#include "common/command_line.h"
#include "common/error.h"
#include "common/json.h"
#include "compiler/driver/build_model.h"
#include "compiler/space/config_proto.h"
#include "fleet/secrets.h"
#include "tuner/measure/device_arch.h"
#include "tuner/measure/task_measure.h"
#include "tuner/tune/model_tasks.h"
#include "tuner/tune/tune_check.h"
#include "tuner/tune/tune_model.h"
#include "tuner/tune/tune_task.h"
#include "tuner/tune/tuning_curve.h"

namespace tessera {
namespace cli {
namespace {

struct TuneFlags {
  std::string model, task, target, db, curve;
  std::vector<std::string> input_shapes;
  tuner::BatchBuckets buckets;  // --batch-buckets, --batch-weights, --batch-dim
  tuner::TuneTaskOptions options;
  bool no_transfer = false;
  std::string rpc_token_file;
  bool json = false;
  bool no_check = false;
  std::string cold_weights = "auto";  // --cold-weights
};

std::string Duration(double seconds) {
  char buf[32];
  int s = static_cast<int>(std::lround(seconds));
  std::snprintf(buf, sizeof(buf), "%dm%02ds", s / 60, s % 60);
  return buf;
}

std::string Gflops(double flops, double seconds) {
  if (!std::isfinite(seconds) || seconds <= 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f", flops / seconds / 1e9);
  return buf;
}

// The config as its knobs' values, as the tuning log stores it.
Json ConfigJson(const space::ConfigEntity& config) {
  Json knobs = Json::array();
  const tuning::Config message = space::ConfigToProto(config);
  for (const tuning::KnobValue& knob : message.knobs()) {
    Json value = knob.names_size() > 0
                     ? Json(std::vector<std::string>(knob.names().begin(), knob.names().end()))
                     : Json(std::vector<int64_t>(knob.ints().begin(), knob.ints().end()));
    knobs.push_back({{"name", knob.name()}, {"kind", knob.kind()}, {"value", value}});
  }
  return {{"index", config.index()}, {"knobs", knobs}};
}

void PrintSummary(const task::Task& task, const tuner::TuneTaskResult& result, double seconds,
                  bool json) {
  const tuner::TuneResult& r = result.search;
  const double flops = task.flops();
  if (json) {
    Json out;
    out["workload_key"] = task.workload_key();
    out["trials"] = r.trials;
    out["failures"] = r.failures;
    out["resumed"] = result.resumed;
    out["transferred"] = result.transferred;
    out["seconds"] = seconds;
    out["best_gflops"] = r.best ? Json(flops / r.best->outcome.cost / 1e9) : Json();
    out["best_config"] = r.best ? ConfigJson(r.best->config) : Json();
    PrintJsonLine(out, std::cout);
    return;
  }
  std::cout << "tuned " << task.workload_key() << " [" << task.target() << "]: " << r.trials
            << " trials (" << r.failures << " failed, " << result.resumed << " resumed"
            << (result.transferred ? ", transfer from other shapes" : "")
            << (result.requeued ? ", " + std::to_string(result.requeued) + " re-queued" : "")
            << ") in " << Duration(seconds) << "; best ";
  if (r.best) {
    std::cout << Gflops(flops, r.best->outcome.cost) << " GFLOP/s (" << r.best->outcome.cost * 1e3
              << " ms) " << r.best->config.ToString() << "\n";
  } else {
    std::cout << "none (every trial failed)\n";
  }
}

std::string Millis(double seconds) {
  if (!std::isfinite(seconds)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4g ms", seconds * 1e3);
  return buf;
}

// One build's end-of-tuning check (tuner/tune/tune_check.h).
void CheckBuild(const TuneFlags& flags, records::TuningLog& log,
                const tuner::TuneCheckOptions& build) {
  const int64_t batch = build.batch;
  const std::string at = batch > 0 ? " at batch " + std::to_string(batch) : "";
  std::cerr << "checking: building " << flags.model << at
            << " with the records and without, and running both\n";
  const tuner::TuneCheck check = tuner::CheckAndKeep(build, &log);
  if (!flags.json) {
    tuner::PrintTuneCheck(check, std::cout);
    return;
  }
  Json kernels = Json::array();
  for (const tuner::KernelCheck& k : check.kernels) {
    kernels.push_back({{"node", k.node},
                       {"workload_key", k.workload_key},
                       {"tuned_ms", k.tuned_ms},
                       {"untuned_ms", k.untuned_ms},
                       {"record_ms", k.record_ms}});
  }
  Json kept = Json::array();
  for (const tuner::KeptChoice& choice : check.kept) {
    kept.push_back({{"workload_key", choice.tuned.workload_key()},
                    {"untuned_workload_key", choice.untuned.workload_key()},
                    {"tuned_ms", records::MeanCost(choice.tuned) * 1e3},
                    {"untuned_ms", records::MeanCost(choice.untuned) * 1e3}});
  }
  PrintJsonLine(Json{{"check",
                      {{"batch", batch > 0 ? Json(batch) : Json()},
                       {"threads", check.threads},
                       {"tuned_ms", check.tuned_ms},
                       {"untuned_ms", check.untuned_ms},
                       {"template_ms", check.template_ms},
                       {"estimated_part_ms", check.estimated_part_ms},
                       {"unestimated_kernels", check.unestimated_kernels},
                       {"estimated_ms",
                        std::isfinite(check.estimated_ms) ? Json(check.estimated_ms) : Json()},
                       {"kernels", kernels},
                       {"kept", kept},
                       {"kept_ms", check.kept_ms > 0 ? Json(check.kept_ms) : Json()},
                       {"keep_rounds", check.keep_rounds}}}},
                std::cout);
}

// The end-of-tuning check (tuner/tune/tune_check.h), where the records were measured on this
// machine.
void CheckAfterTuning(const TuneFlags& flags, records::TuningLog& log,
                      const tuner::TuneModelResult& tuned) {
  if (flags.no_check) return;
  if (!flags.options.rpc_tracker.empty()) {
    std::cerr << "check skipped: the records were measured on fleet devices of key '"
              << flags.options.rpc_key
              << "', not here; `tessera compile --db` with and without the log and `tessera run "
                 "--rpc-tracker` compare them there\n";
    return;
  }
  tuner::TuneCheckOptions model;
  model.model = flags.model;
  model.input_shapes = flags.input_shapes;
  model.target = flags.target;
  model.batch_dim = flags.buckets.dim;
  model.estimated_s = tuned.estimated;
  model.estimated_workloads = tuned.estimated_workloads;
  // A model of batch buckets is checked at each bucket: each is a build of its own.
  for (const tuner::TuneCheckOptions& build : tuner::BuildsToCheck(model, flags.buckets.sizes)) {
    CheckBuild(flags, log, build);
  }
}

// How the model's kernels are timed (--cold-weights), and why when it was decided for them.
std::string WeightsState(const TuneFlags& flags, const ModelTask& task) {
  std::string state =
      task.cold_weights ? "weights evicted from the caches before every call" : "weights warm";
  if (flags.cold_weights != "auto") return state;
  return state + (task.cold_weights ? " (the model's weights exceed the target's caches)"
                                    : " (the model's weights fit the target's caches)");
}

// Says which tasks the budget left without a record, and the budget that measures each once: a
// model of many tasks (DenseNet-121 has 70) can spend 250 trials before reaching them all, and
// its build then configures them from the nearest tuned shape or the fallback.
void NoteUnmeasuredTasks(const std::vector<ModelTask>& tasks, const tuner::TuneModelResult& result,
                         int64_t trials, int batch_size) {
  int unmeasured = 0;
  for (size_t t = 0; t < tasks.size(); ++t) {
    if (result.tasks[t].trials == 0 && tasks[t].smaller_bucket.empty()) ++unmeasured;
  }
  if (unmeasured == 0 || result.stalled) return;
  std::cerr << "note: " << unmeasured << " of the " << tasks.size()
            << " tasks have no record: the budget of " << trials
            << " trials (earlier records count) ran out first; their kernels take the nearest "
               "tuned shape's config or the fallback. --trials "
            << trials + int64_t{unmeasured} * batch_size << " measures each at least once\n";
}

void TuneModel(const TuneFlags& flags) {
  tuner::CheckTarget(flags.target);
  std::vector<ModelTask> tasks =
      tuner::ExtractModelTasks(flags.model, flags.input_shapes, flags.target, flags.buckets);
  if (tasks.empty()) throw UserError(flags.model + ": the model has no tunable task");
  tuner::ApplyColdWeights(flags.cold_weights, &tasks);
  auto log = records::TuningLog::Open(flags.db);
  std::unique_ptr<tuner::CurveWriter> curve;
  if (!flags.curve.empty()) curve = std::make_unique<tuner::CurveWriter>(flags.curve);
  tuner::TuneModelOptions options;
  options.trials = flags.options.trials;
  options.task = flags.options;
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::cerr << "tuning " << tasks.size() << " tasks of " << flags.model << " for '" << flags.target
            << "': " << options.trials << " trials in all (earlier records count), "
            << options.task.tuner << " tuner, " << WeightsState(flags, tasks[0]) << "\n";
  const auto seeded = std::count_if(tasks.begin(), tasks.end(),
                                    [](const ModelTask& t) { return !t.smaller_bucket.empty(); });
  if (seeded > 0) {
    std::cerr << "tasks of the larger buckets that start from the best configurations of the same "
              << "kernel in the smallest bucket (tuned first): " << seeded << "\n";
  }
  tuner::TuneModelResult result = tuner::TuneModel(
      tasks, flags.target, log.get(), options, [&](const tuner::TuneModelProgress& p) {
        if (curve) curve->Add({elapsed(), 0, p.trials, p.estimated, p.measured_tasks});
        double eta = elapsed() / p.measured * (p.budget - p.trials);
        std::cerr << "\r[" << p.trials << "/" << p.budget << "] task " << p.task + 1 << "/"
                  << tasks.size() << " " << tasks[p.task].workload_key << ", estimated "
                  << Millis(p.estimated) << " (" << p.measured_tasks << "/" << tasks.size()
                  << " tasks measured), elapsed " << Duration(elapsed()) << ", ETA at most "
                  << Duration(eta) << "   " << std::flush;
      });
  if (result.measured > 0) std::cerr << "\n";
  Json out_tasks = Json::array();
  for (size_t i = 0; i < tasks.size(); ++i) {
    const tuner::TunedTaskSummary& s = result.tasks[i];
    const char* state = s.stalled ? "stalled" : s.exhausted ? "exhausted" : "";
    if (flags.json) {
      out_tasks.push_back({{"workload_key", tasks[i].workload_key},
                           {"weight", tasks[i].weight},
                           {"trials", s.trials},
                           {"measured", s.measured},
                           {"best_ms", std::isfinite(s.best) ? Json(s.best * 1e3) : Json()},
                           {"state", state}});
      continue;
    }
    std::cout << "  " << tasks[i].workload_key << " x" << tasks[i].weight << ": " << s.trials
              << " trials (" << s.measured << " new), best " << Millis(s.best) << ", "
              << Gflops(tasks[i].flops, s.best) << " GFLOP/s" << (*state ? ", " : "") << state
              << "\n";
  }
  int measured_tasks = 0;
  for (const auto& s : result.tasks) measured_tasks += std::isfinite(s.best) ? 1 : 0;
  if (flags.json) {
    Json out;
    out["model"] = flags.model;
    out["tasks"] = out_tasks;
    out["measured"] = result.measured;
    out["seconds"] = elapsed();
    out["estimated_ms"] = result.estimated * 1e3;
    out["stalled"] = result.stalled;
    PrintJsonLine(out, std::cout);
  } else {
    std::cout << "tuned " << flags.model << " [" << flags.target << "]: " << tasks.size()
              << " tasks, " << result.measured << " trials measured in " << Duration(elapsed())
              << "; estimated latency of the tunable part " << Millis(result.estimated) << " ("
              << measured_tasks << "/" << tasks.size() << " tasks measured)"
              << (result.stalled ? "; stopped: the estimate improved less than " : "");
    if (result.stalled) {
      std::cout << options.schedule.model_stall_improvement * 100 << "% over the last "
                << options.schedule.model_stall_trials << " trials";
    }
    std::cout << "\n";
  }
  NoteUnmeasuredTasks(tasks, result, flags.options.trials, flags.options.batch_size);
  CheckAfterTuning(flags, *log, result);
}

void Tune(TuneFlags& flags) {
  tuner::TuneTaskOptions& options = flags.options;
  if (flags.model.empty() == flags.task.empty()) {
    throw UserError(
        "tessera tune: give either a model (tessera tune model.onnx ...) or --task KEY, not "
        "both or neither");
  }
  if (!flags.input_shapes.empty() && flags.model.empty()) {
    throw UserError("tessera tune: --input-shape applies to a model, not to --task");
  }
  if (flags.buckets.given() && flags.model.empty()) {
    throw UserError(
        "tessera tune: --batch-buckets, --batch-weights and --batch-dim apply to a model, not to "
        "--task");
  }
  if (!flags.model.empty()) flags.buckets = tuner::CheckedBatchBuckets(flags.buckets);
  if (!flags.curve.empty() && flags.model.empty()) {
    throw UserError("tessera tune: --curve applies to a model, not to --task");
  }
  if (flags.options.rpc_tracker.empty() != flags.options.rpc_key.empty()) {
    throw UserError(
        "tessera tune: --rpc-tracker HOST:PORT and --rpc-key KEY go together (measure on fleet "
        "devices of that key); leave both out to measure on this machine");
  }
  // Before a model is read or a candidate built: every trial would fail to load.
  if (options.rpc_tracker.empty()) tuner::CheckRunsOnThisHost(flags.target);
  options.transfer = !flags.no_transfer;
  if (!flags.rpc_token_file.empty()) options.rpc_token = fleet::ReadTokenFile(flags.rpc_token_file);
  if (!flags.model.empty()) return TuneModel(flags);
  options.run.cold_weights = tuner::ColdWeightsOfTask(flags.cold_weights);

  task::Task task(flags.task, flags.target);
  tuner::CheckTarget(task.target());  // before the header: a bad -mcpu ends the run at once
  auto log = records::TuningLog::Open(flags.db);
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::cerr << "tuning " << task.workload_key() << " for '" << task.target()
            << "': " << task.config_space().size() << " configurations, " << options.tuner
            << " tuner\n";
  // A template builds for the target never run (dense.x86 for an aarch64 board) tunes as asked.
  const std::string note =
      TemplateOfAnotherFamilyNote(task.workload_key(), task.templ().name, task.target());
  if (!note.empty()) std::cerr << note << "\n";
  tuner::TuneTaskResult result =
      tuner::TuneTask(task, log.get(), options, [&](const tuner::TuneProgress& p, const auto&) {
        double eta = p.trials > 0 ? elapsed() / p.trials * (p.planned - p.trials) : 0;
        std::cerr << "\r[" << p.trials << "/" << p.planned << "] best "
                  << Gflops(task.flops(), p.best_cost) << " GFLOP/s, " << p.failures
                  << " failed, elapsed " << Duration(elapsed()) << ", ETA " << Duration(eta)
                  << "   " << std::flush;
      });
  std::cerr << "\n";
  PrintSummary(task, result, elapsed(), flags.json);
  if (!result.search.best) throw CLI::RuntimeError(1);  // every trial failed
}

}  // namespace

constexpr const char* kDbHelp =
    "tuning log (created when missing): a SQLite file or postgresql://USER@HOST/DB (password from "
    "PGPASSWORD or ~/.pgpass)";

namespace {

// How candidates are timed.
void AddTimingFlags(CLI::App* tune, TuneFlags* flags) {
  tuner::RunOptions& run = flags->options.run;
  tune->add_option("--number", run.number, "calls per timing")->check(Positive());
  tune->add_option("--repeat", run.repeat, "timings per candidate")->check(Positive());
  tune->add_option("--min-repeat-ms", run.min_repeat_ms, "minimum length of one timing")
      ->check(NonNegative());
  tune->add_flag("--flush-cache", run.flush_cache,
                 "evict every argument from the CPU caches before each call");
  tune->add_option("--cold-weights", flags->cold_weights,
                   "evict the kernels' weights from the CPU caches before each call, as a model "
                   "reads them when they exceed the caches (auto: a model's when its weights "
                   "exceed the target's cache, a --task's never)")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  tune->add_option("--time-budget", run.time_budget_s,
                   "seconds of timing per candidate before fewer calls are made (0: off)")
      ->check(NonNegative());
}

}  // namespace

void AddTuneCommand(CLI::App& app) {
  auto flags = std::make_shared<TuneFlags>();
  tuner::TuneTaskOptions& o = flags->options;
  o.measure.build_timeout_s = 60;
  o.measure.run_timeout_s = 30;
  CLI::App* tune = app.add_subcommand(
      "tune",
      "Tune one operator, or every tunable task of an ONNX model, and record every measurement "
      "in the tuning log.\n"
      "  e.g. tessera tune --task 'dense.x86(1024,1024,1024,float32)' --target 'llvm "
      "-mcpu=native' --trials 300 --db tuning.db\n"
      "       tessera tune resnet18.onnx --target 'llvm -mcpu=native' --trials 2000 --db "
      "tuning.db\n"
      "  (`tessera tasks` lists the templates and their workload keys)");
  tune->option_defaults()->always_capture_default();
  tune->add_option("model", flags->model,
                   "ONNX model whose tunable tasks to tune (trials are spent where they cut the "
                   "most end-to-end latency)")
      ->check(CLI::ExistingFile);
  tune->add_option("--task", flags->task,
                   "workload key of one task, e.g. 'dense.x86(1024,1024,1024,float32)'");
  tune->add_option("--input-shape", flags->input_shapes,
                   "model: static shape of an input, NAME:1x3x224x224 (repeatable)");
  tune->add_option("--batch-buckets", flags->buckets.sizes,
                   "model: tune the builds of these batch sizes of a model with a symbolic batch "
                   "(`tessera compile --batch` with the same list builds them), e.g. 1,4,16; "
                   "the smallest bucket is searched, where trials cut the weighted latency of "
                   "all buckets most, and the larger buckets' kernels measure its best "
                   "configurations")
      ->delimiter(',');
  tune->add_option("--batch-weights", flags->buckets.weights,
                   "model: how often each bucket runs, relatively, e.g. 4,2,1 (default: equally)")
      ->delimiter(',');
  tune->add_option("--batch-dim", flags->buckets.dim,
                   "model: the symbolic dimension that is the batch (default: the inputs' first)");
  tune->add_option("--curve", flags->curve,
                   "model: append the tuning-time curve to this CSV file after every batch "
                   "(seconds,trials,estimated_ms,measured_tasks; a resumed run continues it)");
  tune->add_option("--target", flags->target, "target string, e.g. 'llvm -mcpu=native'")
      ->required();
  tune->add_option("--db", flags->db, kDbHelp)->required();
  tune->add_option("--trials", o.trials,
                   "measurements to make (model: in all, the log's earlier records included)")
      ->check(Positive());
  tune->add_option("--tuner", o.tuner, "search strategy")
      ->check(CLI::IsMember({"xgb", "ga", "random", "grid"}));
  tune->add_option("--features", o.features,
                   "xgb features: knob values, or also the lowered loop nest (slower)")
      ->check(CLI::IsMember({"knob", "loop"}));
  tune->add_flag("--no-transfer", flags->no_transfer,
                 "xgb: do not learn from the log's other shapes of the template");
  tune->add_option("--batch", o.batch_size, "candidates built in parallel per batch")
      ->check(Positive());
  tune->add_option("--early-stopping", o.early_stopping,
                   "stop after N trials without a new best (-1: never)");
  AddTimingFlags(tune, flags.get());
  tune->add_option("--build-parallel", o.measure.build_parallel, "compiler processes at once")
      ->check(Positive());
  tune->add_option("--build-timeout", o.measure.build_timeout_s, "seconds per build")
      ->check(Positive());
  tune->add_option("--run-timeout", o.measure.run_timeout_s, "seconds per run, timing included")
      ->check(Positive());
  tune->add_option("--seed", o.seed, "random seed of the search");
  tune->add_option("--rpc-tracker", o.rpc_tracker, "measure on fleet devices of this tracker")
      ->check(HostPort());
  tune->add_option("--rpc-key", o.rpc_key, "device key of the fleet devices to measure on");
  tune->add_option("--rpc-token-file", flags->rpc_token_file, "the fleet's shared token")
      ->check(CLI::ExistingFile);
  tune->add_flag("--json", flags->json,
                 "print the summary as one JSON object (a model: and the check as a second)");
  tune->add_flag("--no-check", flags->no_check,
                 "model: skip the end-of-tuning check (the model built with and without the "
                 "records, both run here, kernels slower than their records named)");
  tune->callback([flags] { Tune(*flags); });
}

}  // namespace cli
}  // namespace tessera
