// `tessera log`: query and move tuning logs (best records, listings, statistics, JSON lines).
#include <google/protobuf/util/json_util.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <ostream>

#include "cli/command.h"
#include "proto/grant.h"
#include "rpc_server/client/flags.h"
#include "tuner/log/log_error.h"
#include "tuner/log/tuning_log.h"

namespace tessera {
namespace cli {
namespace {

constexpr const char* kUsage =
    "usage: tessera log best|list|stats|export|import --db FILE [--task WORKLOAD] "
    "[--target TARGET] [--json] [--limit N] [--file F]\n"
    "  best    the fastest successful record per workload and target\n"
    "  list    every record (newest N with --limit)\n"
    "  stats   records, failures and best cost per workload and target\n"
    "  export  records as JSON lines (to --file F, or standard output)\n"
    "  import  JSON lines from --file F (or standard input) into --db";

std::string ToJson(const tuning::MeasureRecord& r) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  std::string json;
  (void)google::protobuf::util::MessageToJsonString(r, &json, options);
  return json;
}

std::string FormatCost(double seconds) {
  if (!std::isfinite(seconds)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4f ms", seconds * 1e3);
  return buf;
}

void PrintRecord(const tuning::MeasureRecord& r, std::ostream& out) {
  out << r.workload_key() << "  [" << r.target() << "]  config " << r.config_index() << "  "
      << (r.error_kind() == tuning::OK
              ? FormatCost(tuner::MeanCost(r))
              : tuning::ErrorKind_Name(r.error_kind()) + ": " + r.error_message())
      << "  device " << r.device_key() << "\n";
}

int Run(const std::vector<std::string>& args, std::ostream& out) {
  if (args.empty()) throw fleet::ConfigError(kUsage);
  const std::string verb = args[0];
  fleet::Flags flags("tessera log " + verb, {args.begin() + 1, args.end()}, {"json"});
  flags.CheckKnown({"db", "task", "target", "json", "limit", "file"});
  const std::string db = flags.Require("db");
  tuner::RecordFilter filter;
  filter.workload_key = flags.Get("task");
  filter.target = flags.Get("target");
  filter.limit = flags.GetInt("limit", -1);
  const bool json = flags.Has("json");

  if (verb == "import") {
    auto log = tuner::TuningLog::Open(db, /*create=*/true);
    tuner::ImportResult result;
    if (flags.Has("file")) {
      std::ifstream in(flags.Get("file"));
      if (!in) throw fleet::ConfigError("cannot read '" + flags.Get("file") + "'");
      result = log->ImportJsonLines(in, flags.Get("file"));
    } else {
      result = log->ImportJsonLines(std::cin, "<stdin>");
    }
    out << "imported " << result.imported << " records into " << db << " (" << result.duplicates
        << " already present)\n";
    return 0;
  }

  auto log = tuner::TuningLog::Open(db, /*create=*/false);
  if (verb == "export") {
    int64_t n = 0;
    if (flags.Has("file")) {
      std::ofstream file(flags.Get("file"), std::ios::trunc);
      if (!file) throw fleet::ConfigError("cannot write '" + flags.Get("file") + "'");
      n = log->ExportJsonLines(file, filter);
      std::cerr << "exported " << n << " records to " << flags.Get("file") << "\n";
    } else {
      n = log->ExportJsonLines(out, filter);
    }
    return 0;
  }
  if (verb == "list") {
    for (const auto& r : log->List(filter)) {
      if (json) {
        out << ToJson(r) << "\n";
      } else {
        PrintRecord(r, out);
      }
    }
    return 0;
  }
  if (verb == "best" || verb == "stats") {
    auto stats = log->Stats(filter);
    if (stats.empty()) {
      std::cerr << "no records"
                << (filter.workload_key.empty() ? "" : " for " + filter.workload_key)
                << (filter.target.empty() ? "" : " on '" + filter.target + "'") << " in " << db
                << "\n";
      return verb == "best" ? 1 : 0;
    }
    for (const auto& s : stats) {
      if (verb == "stats") {
        if (json) {
          out << "{\"workload_key\":\"" << s.workload_key << "\",\"target\":\"" << s.target
              << "\",\"records\":" << s.records << ",\"failures\":" << s.failures
              << ",\"best_seconds\":"
              << (std::isfinite(s.best_cost) ? std::to_string(s.best_cost) : "null") << "}\n";
        } else {
          out << s.workload_key << "  [" << s.target << "]  " << s.records << " records, "
              << s.failures << " failed, best " << FormatCost(s.best_cost) << "\n";
        }
        continue;
      }
      auto best = log->Best(s.workload_key, s.target);
      if (!best) continue;
      if (json) {
        out << ToJson(*best) << "\n";
      } else {
        PrintRecord(*best, out);
      }
    }
    return 0;
  }
  throw fleet::ConfigError("unknown log command '" + verb + "'\n" + kUsage);
}

int LogCommand(const std::vector<std::string>& args, std::ostream& out) {
  try {
    return Run(args, out);
  } catch (const tuner::LogError& e) {
    std::cerr << "error: " << e.what() << std::endl;
    return 1;
  }
}

}  // namespace

TESSERA_REGISTER_COMMAND(log, Command{"log", "query tuning logs: best, list, stats, export, import",
                                      LogCommand});

}  // namespace cli
}  // namespace tessera
