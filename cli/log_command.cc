// `tessera log`: query and move tuning logs (best records, listings, statistics, JSON lines).
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "common/command_line.h"
#include "common/error.h"
#include "common/json.h"
#include "tuner/log/tuning_log.h"

namespace tessera {
namespace cli {
namespace {

struct LogFlags {
  std::string db, file;
  tuner::RecordFilter filter;
  bool json = false;
};

std::string FormatCost(double seconds) {
  if (!std::isfinite(seconds)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4f ms", seconds * 1e3);
  return buf;
}

void PrintRecord(const tuning::MeasureRecord& r, bool json) {
  if (json) {
    std::cout << tuner::RecordToJson(r) << "\n";
    return;
  }
  std::cout << r.workload_key() << "  [" << r.target() << "]  config " << r.config_index() << "  "
            << (r.error_kind() == tuning::OK
                    ? FormatCost(tuner::MeanCost(r))
                    : tuning::ErrorKind_Name(r.error_kind()) + ": " + r.error_message())
            << "  device " << r.device_key() << "\n";
}

void Import(const LogFlags& flags) {
  auto log = tuner::TuningLog::Open(flags.db, /*create=*/true);
  tuner::ImportResult result;
  if (!flags.file.empty()) {
    std::ifstream in(flags.file);
    if (!in) throw UserError("--file '" + flags.file + "': cannot read file");
    result = log->ImportJsonLines(in, flags.file);
  } else {
    result = log->ImportJsonLines(std::cin, "<stdin>");
  }
  std::cout << "imported " << result.imported << " records into " << flags.db << " ("
            << result.duplicates << " already present)\n";
}

void Export(const LogFlags& flags) {
  auto log = tuner::TuningLog::Open(flags.db, /*create=*/false);
  if (flags.file.empty()) {
    log->ExportJsonLines(std::cout, flags.filter);
    return;
  }
  std::ofstream file(flags.file, std::ios::trunc);
  if (!file) throw UserError("--file '" + flags.file + "': cannot write file");
  int64_t n = log->ExportJsonLines(file, flags.filter);
  std::cerr << "exported " << n << " records to " << flags.file << "\n";
}

void List(const LogFlags& flags) {
  auto log = tuner::TuningLog::Open(flags.db, /*create=*/false);
  for (const auto& r : log->List(flags.filter)) PrintRecord(r, flags.json);
}

void PrintStats(const tuner::WorkloadStats& s, bool json) {
  if (json) {
    Json line;
    line["workload_key"] = s.workload_key;
    line["target"] = s.target;
    line["records"] = s.records;
    line["failures"] = s.failures;
    line["best_seconds"] = s.best_cost;  // null when every record failed
    PrintJsonLine(line, std::cout);
    return;
  }
  std::cout << s.workload_key << "  [" << s.target << "]  " << s.records << " records, "
            << s.failures << " failed, best " << FormatCost(s.best_cost) << "\n";
}

// `best` and `stats` go per workload and target; `best` without any record exits 1.
void Summarize(const LogFlags& flags, bool best) {
  auto log = tuner::TuningLog::Open(flags.db, /*create=*/false);
  auto stats = log->Stats(flags.filter);
  if (stats.empty()) {
    const tuner::RecordFilter& f = flags.filter;
    std::cerr << "no records" << (f.workload_key.empty() ? "" : " for " + f.workload_key)
              << (f.target.empty() ? "" : " on '" + f.target + "'") << " in " << flags.db << "\n";
    if (best) throw CLI::RuntimeError(1);
    return;
  }
  for (const auto& s : stats) {
    if (!best) {
      PrintStats(s, flags.json);
    } else if (auto record = log->Best(s.workload_key, s.target)) {
      PrintRecord(*record, flags.json);
    }
  }
}

// One verb with the flags every verb shares; `file` only where it means something.
CLI::App* AddVerb(CLI::App* log, const std::string& name, const std::string& help,
                  const std::shared_ptr<LogFlags>& flags, bool filters, const char* file_help) {
  CLI::App* verb = log->add_subcommand(name, help);
  verb->add_option("--db", flags->db, "SQLite tuning log")->required();
  if (filters) {
    verb->add_option("--task", flags->filter.workload_key, "only this workload key");
    verb->add_option("--target", flags->filter.target, "only this exact target string");
  }
  if (file_help != nullptr) verb->add_option("--file", flags->file, file_help);
  return verb;
}

}  // namespace

void AddLogCommand(CLI::App& app) {
  auto flags = std::make_shared<LogFlags>();
  CLI::App* log = app.add_subcommand("log", "Query and move tuning logs.");
  log->require_subcommand(1);
  CLI::App* best = AddVerb(log, "best", "the fastest successful record per workload and target",
                           flags, true, nullptr);
  best->add_flag("--json", flags->json, "records as JSON lines");
  best->callback([flags] { Summarize(*flags, /*best=*/true); });
  CLI::App* list =
      AddVerb(log, "list", "every record (the newest N with --limit)", flags, true, nullptr);
  list->add_flag("--json", flags->json, "records as JSON lines");
  list->add_option("--limit", flags->filter.limit, "at most N records, the newest")
      ->check(Positive());
  list->callback([flags] { List(*flags); });
  CLI::App* stats = AddVerb(log, "stats", "records, failures and best cost per workload and target",
                            flags, true, nullptr);
  stats->add_flag("--json", flags->json, "one JSON object per workload and target");
  stats->callback([flags] { Summarize(*flags, /*best=*/false); });
  AddVerb(log, "export", "records as JSON lines", flags, true,
          "write to this file (default: standard output)")
      ->callback([flags] { Export(*flags); });
  AddVerb(log, "import", "JSON lines into the log (duplicates skipped; a bad line imports nothing)",
          flags, false, "read this file (default: standard input)")
      ->callback([flags] { Import(*flags); });
}

}  // namespace cli
}  // namespace tessera
