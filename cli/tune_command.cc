// `tessera tune`: tunes one task locally or on the fleet and records every measurement in the
// tuning log.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "common/command_line.h"
#include "common/error.h"
#include "common/json.h"
#include "compiler/space/config_proto.h"
#include "fleet/secrets.h"
#include "tuner/measure/task_measure.h"
#include "tuner/tune/tune_task.h"

namespace tessera {
namespace cli {
namespace {

struct TuneFlags {
  std::string task, target, db;
  tuner::TuneTaskOptions options;
  bool no_transfer = false;
  std::string rpc_token_file;
  bool json = false;
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

void PrintSummary(const tuner::Task& task, const tuner::TuneTaskResult& result, double seconds,
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

void Tune(TuneFlags& flags) {
  tuner::TuneTaskOptions& options = flags.options;
  if (flags.options.rpc_tracker.empty() != flags.options.rpc_key.empty()) {
    throw UserError(
        "tessera tune: --rpc-tracker HOST:PORT and --rpc-key KEY go together (measure on fleet "
        "devices of that key); leave both out to measure on this machine");
  }
  options.transfer = !flags.no_transfer;
  if (!flags.rpc_token_file.empty()) options.rpc_token = fleet::ReadTokenFile(flags.rpc_token_file);

  tuner::Task task(flags.task, flags.target);
  tuner::CheckTarget(task.target());  // before the header: a bad -mcpu ends the run at once
  auto log = tuner::TuningLog::Open(flags.db);
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::cerr << "tuning " << task.workload_key() << " for '" << task.target()
            << "': " << task.config_space().size() << " configurations, " << options.tuner
            << " tuner\n";
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

void AddTuneCommand(CLI::App& app) {
  auto flags = std::make_shared<TuneFlags>();
  tuner::TuneTaskOptions& o = flags->options;
  o.measure.build_timeout_s = 60;
  o.measure.run_timeout_s = 30;
  CLI::App* tune = app.add_subcommand(
      "tune",
      "Tune one operator and record every measurement in the tuning log.\n"
      "  e.g. tessera tune --task 'dense.x86(1024,1024,1024,float32)' --target 'llvm "
      "-mcpu=native' --trials 300 --db tuning.db\n"
      "  (`tessera tasks` lists the templates and their workload keys)");
  tune->option_defaults()->always_capture_default();
  tune->add_option("--task", flags->task, "workload key, e.g. 'dense.x86(1024,1024,1024,float32)'")
      ->required();
  tune->add_option("--target", flags->target, "target string, e.g. 'llvm -mcpu=native'")
      ->required();
  tune->add_option("--db", flags->db, "SQLite tuning log (created when missing)")->required();
  tune->add_option("--trials", o.trials, "measurements to make")->check(Positive());
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
  tune->add_option("--number", o.run.number, "calls per timing")->check(Positive());
  tune->add_option("--repeat", o.run.repeat, "timings per candidate")->check(Positive());
  tune->add_option("--min-repeat-ms", o.run.min_repeat_ms, "minimum length of one timing")
      ->check(NonNegative());
  tune->add_flag("--flush-cache", o.run.flush_cache, "flush the CPU caches before each call");
  tune->add_option("--time-budget", o.run.time_budget_s,
                   "seconds of timing per candidate before fewer calls are made (0: off)")
      ->check(NonNegative());
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
  tune->add_flag("--json", flags->json, "print the summary as one JSON object");
  tune->callback([flags] { Tune(*flags); });
}

}  // namespace cli
}  // namespace tessera
