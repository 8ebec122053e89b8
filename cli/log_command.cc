// `tessera log`: query and move tuning logs (best records, listings, statistics, JSON lines).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/commands.h"
#include "common/command_line.h"
#include "common/error.h"
#include "common/file.h"
#include "common/json.h"
#include "compiler/task/task.h"
#include "fleet/client/log_client.h"
#include "records/record_check.h"
#include "records/tuning_log.h"
#include "report/curve_svg.h"
#include "report/png.h"
#include "report/tuning_curve.h"

namespace tessera {
namespace cli {
namespace {

// Where a tuning log can live, for the flags' help.
constexpr const char* kLogStoreHelp =
    "tuning log: a SQLite file or postgresql://USER@HOST/DB (password from PGPASSWORD or "
    "~/.pgpass)";

struct LogFlags {
  std::string db, file;
  std::string from, to;                     // `copy`
  std::string tracker, token_file, tls_ca;  // the tracker's shared log instead of --db
  records::RecordFilter filter;
  bool json = false;
  std::string output, axis = "trials";  // `curve`
};

std::string FormatCost(double seconds) {
  if (!std::isfinite(seconds)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4f ms", seconds * 1e3);
  return buf;
}

void PrintRecord(const tuning::MeasureRecord& r, bool json) {
  if (json) {
    std::cout << records::RecordToJson(r) << "\n";
    return;
  }
  std::cout << r.workload_key() << "  [" << r.target() << "]  config " << r.config_index() << "  "
            << (r.error_kind() == tuning::OK
                    ? FormatCost(records::MeanCost(r))
                    : tuning::ErrorKind_Name(r.error_kind()) + ": " + r.error_message())
            << "  device " << r.device_key() << "  template v" << records::TemplateVersionOf(r)
            << (r.in_model() ? "  measured in the model" : "")
            << (r.cold_weights() ? "  cold weights" : "") << "\n";
}

void Import(const LogFlags& flags) {
  auto log = records::TuningLog::Open(flags.db, /*create=*/true);
  records::ImportResult result;
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

std::unique_ptr<fleet::LogClient> TrackerLog(const LogFlags& flags) {
  return std::make_unique<fleet::LogClient>(
      fleet::TrackerOptionsFor(flags.tracker, flags.token_file, flags.tls_ca));
}

// Every query reads either a local file or the tracker's log, with the same output.
void ForEachRecord(const LogFlags& flags,
                   const std::function<void(const tuning::MeasureRecord&)>& each) {
  if (!flags.tracker.empty()) return TrackerLog(flags)->ForEach(flags.filter, each);
  for (const auto& r : records::TuningLog::Open(flags.db, /*create=*/false)->List(flags.filter)) {
    each(r);
  }
}

fleet::BestRecords ReadBest(const LogFlags& flags) {
  if (!flags.tracker.empty()) return TrackerLog(flags)->Best(flags.filter);
  auto log = records::TuningLog::Open(flags.db, /*create=*/false);
  fleet::BestRecords best;
  for (const auto& s : log->Stats(flags.filter)) {
    ++best.workloads;
    if (auto record = log->Best(s.workload_key, s.target)) best.records.push_back(*record);
  }
  return best;
}

std::vector<records::WorkloadStats> ReadStats(const LogFlags& flags) {
  if (!flags.tracker.empty()) return TrackerLog(flags)->Stats(flags.filter);
  return records::TuningLog::Open(flags.db, /*create=*/false)->Stats(flags.filter);
}

std::string SourceName(const LogFlags& flags) {
  return flags.tracker.empty() ? flags.db : fleet::kTrackerLogScheme + flags.tracker;
}

void Export(const LogFlags& flags) {
  if (flags.file.empty()) {
    ForEachRecord(flags, [](const tuning::MeasureRecord& r) {
      std::cout << records::RecordToJson(r) << '\n';
    });
    return;
  }
  std::ofstream file(flags.file, std::ios::trunc);
  if (!file) throw UserError("--file '" + flags.file + "': cannot write file");
  int64_t n = 0;
  ForEachRecord(flags, [&](const tuning::MeasureRecord& r) {
    file << records::RecordToJson(r) << '\n';
    ++n;
  });
  std::cerr << "exported " << n << " records to " << flags.file << "\n";
}

void List(const LogFlags& flags) {
  ForEachRecord(flags, [&](const tuning::MeasureRecord& r) { PrintRecord(r, flags.json); });
}

// Batch by batch, so that a million-record log never sits in memory whole; progress on stderr.
void Copy(const LogFlags& flags) {
  TESSERA_USER_CHECK(flags.from != flags.to)
      << "--from and --to are the same log ('" << flags.from << "')";
  const auto from = records::TuningLog::Open(flags.from, /*create=*/false);
  const auto to = records::TuningLog::Open(flags.to, /*create=*/true);
  const int64_t total = from->Count();
  const auto start = std::chrono::steady_clock::now();
  auto last_report = start;
  const records::ImportResult copied =
      records::CopyRecords(*from, *to, 10000, [&](const records::ImportResult& so_far) {
        const auto now = std::chrono::steady_clock::now();
        if (now - last_report > std::chrono::seconds(2)) {
          std::cerr << "copy: " << so_far.imported + so_far.duplicates << " of " << total
                    << " records read\n";
          last_report = now;
        }
      });
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  char took[32];
  std::snprintf(took, sizeof(took), "%.1f", seconds);
  std::cout << "copied " << copied.imported << " records from " << flags.from << " to " << flags.to
            << " (" << copied.duplicates << " already present) in " << took << " s\n";
}

// Every record is checked before the first is sent, so a bad log pushes nothing.
void Push(const LogFlags& flags) {
  const std::vector<tuning::MeasureRecord> records =
      records::TuningLog::Open(flags.db, /*create=*/false)->List({});
  for (size_t i = 0; i < records.size(); ++i) {
    const std::string problem = records::RecordProblem(records[i]);
    if (!problem.empty()) {
      throw UserError("--db '" + flags.db + "': record " + std::to_string(i + 1) + " (" +
                      records[i].workload_key().substr(0, 200) + "): " + problem +
                      "; nothing was pushed");
    }
  }
  records::ImportResult result = TrackerLog(flags)->Push(records);
  std::cout << "imported " << result.imported << " records into " << SourceName(flags) << " ("
            << result.duplicates << " already present)\n";
}

void PrintStats(const records::WorkloadStats& s, bool json) {
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

void NoRecords(const LogFlags& flags, bool best) {
  const records::RecordFilter& f = flags.filter;
  std::cerr << "no records" << (f.workload_key.empty() ? "" : " for " + f.workload_key)
            << (f.target.empty() ? "" : " on '" + f.target + "'") << " in " << SourceName(flags)
            << "\n";
  if (best) throw CLI::RuntimeError(1);
}

// The version of the template of `workload_key` this build has; 0 for a template it lacks.
int CurrentTemplateVersion(const std::string& workload_key) {
  const std::string name = records::TemplateOfWorkload(workload_key);
  for (const task::TemplateDef& def : task::Templates()) {
    if (def.name == name) return def.version;
  }
  return 0;
}

// `best` and `stats` go per workload and target; `best` without any record exits 1. A build uses
// records of its own template versions only, so `best` shows the best of those, and says when a
// faster record of another version exists or no record of this version does.
void Best(const LogFlags& flags) {
  fleet::BestRecords best = ReadBest(flags);
  if (best.workloads == 0) return NoRecords(flags, /*best=*/true);
  for (const auto& record : best.records) {
    const int version = CurrentTemplateVersion(record.workload_key());
    const int found = records::TemplateVersionOf(record);
    if (version == 0 || found == version) {
      PrintRecord(record, flags.json);
      continue;
    }
    LogFlags one = flags;
    one.filter.workload_key = record.workload_key();
    one.filter.target = record.target();
    one.filter.only_successful = true;
    std::optional<tuning::MeasureRecord> current;
    ForEachRecord(one, [&](const tuning::MeasureRecord& r) {
      if (records::TemplateVersionOf(r) == version &&
          (!current || records::MeanCost(r) < records::MeanCost(*current))) {
        current = r;
      }
    });
    PrintRecord(current ? *current : record, flags.json);
    std::cerr << "note: " << record.workload_key() << " [" << record.target() << "]: "
              << (current ? "a faster record of template v" + std::to_string(found) +
                                " is not used (this build's template is v" +
                                std::to_string(version) + ")"
                          : "only records of template v" + std::to_string(found) +
                                "; this build's template is v" + std::to_string(version) +
                                " and builds do not use them")
              << "\n";
  }
}

void Stats(const LogFlags& flags) {
  auto stats = ReadStats(flags);
  if (stats.empty()) return NoRecords(flags, /*best=*/false);
  for (const auto& s : stats) PrintStats(s, flags.json);
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The tuning curves of the records, as the output's extension asks.
void Curve(const LogFlags& flags) {
  const bool svg = EndsWith(flags.output, ".svg"), png = EndsWith(flags.output, ".png");
  if (!svg && !png && !EndsWith(flags.output, ".html") && !EndsWith(flags.output, ".htm")) {
    throw UserError("-o '" + flags.output + "': a curve is written as .svg, .png or .html");
  }
  std::vector<tuning::MeasureRecord> all;
  ForEachRecord(flags, [&](const tuning::MeasureRecord& r) { all.push_back(r); });
  const std::vector<report::TaskCurve> curves = report::TuningCurves(all);
  if (curves.empty()) return NoRecords(flags, /*best=*/true);
  const std::string title = "Tuning curves of " + SourceName(flags);
  const report::CurveAxis axis =
      flags.axis == "seconds" ? report::CurveAxis::kSeconds : report::CurveAxis::kTrials;
  if (png) {
    report::WriteSvgAsPng(report::CurveSvg(curves, title, axis), flags.output);
  } else {
    WriteFile(flags.output,
              svg ? report::CurveSvg(curves, title, axis) : report::CurveHtml(curves, title), "-o");
  }
  size_t improved = 0;
  for (const auto& c : curves) improved += c.improvements.empty() ? 0 : 1;
  std::cout << "wrote " << flags.output << ": " << curves.size() << " tasks ("
            << curves.size() - improved << " without a successful trial)\n";
}

void AddTrackerOptions(CLI::App* verb, const std::shared_ptr<LogFlags>& flags,
                       CLI::Option* tracker) {
  verb->add_option("--token-file", flags->token_file, "the fleet's shared token (with --tracker)")
      ->needs(tracker);
  verb->add_option("--tls-ca", flags->tls_ca, "PEM root certificate of a TLS tracker")
      ->needs(tracker);
}

// One verb with the flags every verb shares; `file` only where it means something. A query
// reads a local log (--db) or the tracker's shared one (--tracker).
CLI::App* AddVerb(CLI::App* log, const std::string& name, const std::string& help,
                  const std::shared_ptr<LogFlags>& flags, bool filters, const char* file_help,
                  bool query) {
  CLI::App* verb = log->add_subcommand(name, help);
  if (query) {
    CLI::Option_group* source = verb->add_option_group("source", "where the records are");
    source->add_option("--db", flags->db, kLogStoreHelp);
    CLI::Option* tracker =
        source
            ->add_option("--tracker", flags->tracker, "the shared log of the tracker at HOST:PORT")
            ->check(HostPort());
    source->require_option(1);
    AddTrackerOptions(verb, flags, tracker);
  } else {
    verb->add_option("--db", flags->db, kLogStoreHelp)->required();
  }
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
                           flags, true, nullptr, true);
  best->add_flag("--json", flags->json, "records as JSON lines");
  best->callback([flags] { Best(*flags); });
  CLI::App* list =
      AddVerb(log, "list", "every record (the newest N with --limit)", flags, true, nullptr, true);
  list->add_flag("--json", flags->json, "records as JSON lines");
  list->add_option("--limit", flags->filter.limit, "at most N records, the newest")
      ->check(Positive());
  list->callback([flags] { List(*flags); });
  CLI::App* stats = AddVerb(log, "stats", "records, failures and best cost per workload and target",
                            flags, true, nullptr, true);
  stats->add_flag("--json", flags->json, "one JSON object per workload and target");
  stats->callback([flags] { Stats(*flags); });
  CLI::App* curve = AddVerb(log, "curve",
                            "tuning curves (best latency against trials and time, per task) as "
                            "an SVG, a PNG or a self-contained HTML page",
                            flags, true, nullptr, true);
  curve->add_option("-o,--output", flags->output, "curve.svg, curve.png or curve.html")->required();
  curve->add_option("--x", flags->axis, "the SVG's or PNG's horizontal axis")
      ->check(CLI::IsMember({"trials", "seconds"}));
  curve->callback([flags] { Curve(*flags); });
  AddVerb(log, "export", "records as JSON lines", flags, true,
          "write to this file (default: standard output)", true)
      ->callback([flags] { Export(*flags); });
  AddVerb(log, "import", "JSON lines into the log (duplicates skipped; a bad line imports nothing)",
          flags, false, "read this file (default: standard input)", false)
      ->callback([flags] { Import(*flags); });
  CLI::App* copy = log->add_subcommand(
      "copy",
      "copy every record of one log into another, e.g. a SQLite file into PostgreSQL (duplicates "
      "skipped: copying twice adds nothing)");
  copy->add_option("--from", flags->from, std::string("source ") + kLogStoreHelp)->required();
  copy->add_option("--to", flags->to,
                   std::string("destination ") + kLogStoreHelp + " (created when missing)")
      ->required();
  copy->callback([flags] { Copy(*flags); });
  CLI::App* push = AddVerb(log, "push",
                           "upload a local log's records to the tracker's shared log (duplicates "
                           "skipped; a bad record pushes nothing)",
                           flags, false, nullptr, false);
  CLI::Option* tracker = push->add_option("--tracker", flags->tracker, "the tracker at HOST:PORT")
                             ->required()
                             ->check(HostPort());
  AddTrackerOptions(push, flags, tracker);
  push->callback([flags] { Push(*flags); });
}

}  // namespace cli
}  // namespace tessera
