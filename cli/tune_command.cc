// `tessera tune`: tunes one task locally and records every measurement in the tuning log.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <ostream>

#include "cli/command.h"
#include "compiler/space/config_json.h"
#include "compiler/support/error.h"
#include "proto/grant.h"
#include "rpc_server/client/flags.h"
#include "tuner/log/log_error.h"
#include "tuner/measure/task_measure.h"
#include "tuner/tune/tune_task.h"

namespace tessera {
namespace cli {
namespace {

constexpr const char* kUsage =
    "usage: tessera tune --task WORKLOAD --target TARGET --db FILE [--trials N]\n"
    "           [--tuner xgb|ga|random|grid] [--features knob|loop] [--no-transfer] [--batch N]\n"
    "           [--early-stopping N]\n"
    "           [--number N] [--repeat N] [--min-repeat-ms MS] [--flush-cache] [--time-budget S]\n"
    "           [--build-parallel N] [--build-timeout S] [--run-timeout S] [--seed N]\n"
    "           [--rpc-tracker HOST:PORT --rpc-key KEY [--rpc-token-file F]] [--json]\n"
    "  e.g. tessera tune --task 'dense.x86(1024,1024,1024,float32)' --target 'llvm -mcpu=native'"
    " --trials 300 --db tuning.db";

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

double Seconds(const fleet::Flags& flags, const std::string& name, double fallback) {
  std::string text = flags.Get(name);
  if (text.empty()) return fallback;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !(v > 0)) {
    throw fleet::ConfigError("tessera tune: --" + name +
                             " must be a positive number of seconds, got '" + text + "'");
  }
  return v;
}

int Run(const std::vector<std::string>& args, std::ostream& out) {
  fleet::Flags flags("tessera tune", args, {"no-transfer", "flush-cache", "json"});
  flags.CheckKnown({"task",        "target",         "db",
                    "trials",      "tuner",          "no-transfer",
                    "batch",       "early-stopping", "number",
                    "repeat",      "min-repeat-ms",  "flush-cache",
                    "time-budget", "build-parallel", "build-timeout",
                    "run-timeout", "seed",           "rpc-tracker",
                    "rpc-key",     "rpc-token-file", "json"});
  if (!flags.Has("task") || !flags.Has("target") || !flags.Has("db")) {
    throw fleet::ConfigError(kUsage);
  }
  if (flags.Has("rpc-tracker") != flags.Has("rpc-key")) {
    throw fleet::ConfigError(
        "tessera tune: --rpc-tracker HOST:PORT and --rpc-key KEY go together (measure on fleet "
        "devices of that key); leave both out to measure on this machine");
  }
  tuner::TuneTaskOptions options;
  options.trials = flags.GetInt("trials", 64);
  options.tuner = flags.Get("tuner", "xgb");
  options.transfer = !flags.Has("no-transfer");
  options.features = flags.Get("features", "knob");
  options.batch_size = static_cast<int>(flags.GetInt("batch", 8));
  options.early_stopping = flags.GetInt("early-stopping", -1);
  options.run.number = static_cast<int>(flags.GetInt("number", 10));
  options.run.repeat = static_cast<int>(flags.GetInt("repeat", 3));
  options.run.min_repeat_ms = static_cast<int>(flags.GetInt("min-repeat-ms", 0));
  options.run.flush_cache = flags.Has("flush-cache");
  if (flags.Has("time-budget")) {
    // 0 is allowed: it turns the budget off.
    options.run.time_budget_s =
        flags.Get("time-budget") == "0" ? 0 : Seconds(flags, "time-budget", 1);
  }
  options.measure.build_parallel = static_cast<int>(flags.GetInt("build-parallel", 2));
  options.measure.build_timeout_s = Seconds(flags, "build-timeout", 60);
  options.measure.run_timeout_s = Seconds(flags, "run-timeout", 30);
  options.seed = static_cast<uint64_t>(flags.GetInt("seed", 1));
  options.rpc_tracker = flags.Get("rpc-tracker");
  options.rpc_key = flags.Get("rpc-key");
  if (flags.Has("rpc-token-file"))
    options.rpc_token = fleet::ReadTokenFile(flags.Get("rpc-token-file"));

  try {
    tuner::Task task(flags.Require("task"), flags.Require("target"));
    tuner::CheckTarget(task.target());  // before the header: a bad -mcpu ends the run at once
    auto log = tuner::TuningLog::Open(flags.Require("db"));
    double flops = task.flops();
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
                    << Gflops(flops, p.best_cost) << " GFLOP/s, " << p.failures
                    << " failed, elapsed " << Duration(elapsed()) << ", ETA " << Duration(eta)
                    << "   " << std::flush;
        });
    std::cerr << "\n";
    const tuner::TuneResult& r = result.search;
    if (flags.Has("json")) {
      out << "{\"workload_key\":\"" << task.workload_key() << "\",\"trials\":" << r.trials
          << ",\"failures\":" << r.failures << ",\"resumed\":" << result.resumed
          << ",\"transferred\":" << (result.transferred ? "true" : "false")
          << ",\"seconds\":" << elapsed()
          << ",\"best_gflops\":" << (r.best ? Gflops(flops, r.best->outcome.cost) : "null")
          << ",\"best_config\":" << (r.best ? space::ConfigToJson(r.best->config) : "null")
          << "}\n";
    } else {
      out << "tuned " << task.workload_key() << " [" << task.target() << "]: " << r.trials
          << " trials (" << r.failures << " failed, " << result.resumed << " resumed"
          << (result.transferred ? ", transfer from other shapes" : "")
          << (result.requeued ? ", " + std::to_string(result.requeued) + " re-queued" : "")
          << ") in " << Duration(elapsed()) << "; best ";
      if (r.best) {
        out << Gflops(flops, r.best->outcome.cost) << " GFLOP/s (" << r.best->outcome.cost * 1e3
            << " ms) " << r.best->config.ToString() << "\n";
      } else {
        out << "none (every trial failed)\n";
      }
    }
    return r.best ? 0 : 1;
  } catch (const UserError& e) {
    throw fleet::ConfigError(e.what());
  }
}

}  // namespace

TESSERA_REGISTER_COMMAND(tune,
                         Command{"tune", "tune one operator and record it in the tuning log", Run});

}  // namespace cli
}  // namespace tessera
