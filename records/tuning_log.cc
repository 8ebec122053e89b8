#include "records/tuning_log.h"

#include <google/protobuf/util/json_util.h>
#include <sqlite3.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>

#include "common/sqlite.h"
#include "records/legacy_config.h"
#include "records/log_error.h"
#include "records/schema.h"

namespace tessera {
namespace records {
namespace {

constexpr const char* kColumns =
    "workload_key, target, device_key, config_index, config_json, costs, error_kind, "
    "error_message, timestamp, tuner_version, all_cost, config, template_version, in_model";

std::string CostsToText(const tuning::MeasureRecord& r) {
  std::string text = "[";
  char buf[32];
  for (int i = 0; i < r.costs_size(); ++i) {
    std::snprintf(buf, sizeof(buf), "%.17g", r.costs(i));
    if (i) text += ",";
    text += buf;
  }
  return text + "]";
}

// The costs column is a JSON array of numbers (written with %.17g, so that it round-trips).
void CostsFromText(const std::string& text, tuning::MeasureRecord* r) {
  nlohmann::json costs = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!costs.is_array()) return;
  for (const nlohmann::json& cost : costs) {
    if (cost.is_number()) r->add_costs(cost.get<double>());
  }
}

void ThrowLogError(const SqliteFailure& failure) {
  if (failure.opening) {
    throw LogError("cannot open tuning log '" + failure.path + "': " + failure.detail);
  }
  if (failure.corrupt) {
    throw LogError("tuning log '" + failure.path + "' is corrupt or not a Tessera tuning log (" +
                   failure.detail + ")");
  }
  throw LogError("tuning log '" + failure.path + "': " + failure.what + ": " + failure.detail);
}

tuning::MeasureRecord RowToRecord(const Statement& q) {
  tuning::MeasureRecord r;
  r.set_workload_key(q.Text(0));
  r.set_target(q.Text(1));
  r.set_device_key(q.Text(2));
  r.set_config_index(q.Int(3));
  r.set_config_json(q.Text(4));
  CostsFromText(q.Text(5), &r);
  r.set_error_kind(static_cast<tuning::ErrorKind>(q.Int(6)));
  r.set_error_message(q.Text(7));
  r.set_timestamp(q.Real(8));
  r.set_tuner_version(q.Text(9));
  r.set_all_cost(q.Real(10));
  if (!q.IsNull(11)) r.mutable_config()->ParseFromString(q.Text(11));
  r.set_template_version(static_cast<int32_t>(q.Int(12)));
  r.set_in_model(q.Int(13) != 0);
  return WithConfigMessage(std::move(r));  // rows written before the config column
}

// WHERE clause and its bindings for a filter.
struct Where {
  std::string sql;
  std::vector<std::string> values;
};

Where BuildWhere(const RecordFilter& f) {
  Where w;
  auto add = [&](const std::string& cond, const std::string& value) {
    w.sql += w.sql.empty() ? " WHERE " : " AND ";
    w.sql += cond;
    w.values.push_back(value);
  };
  if (!f.workload_key.empty()) add("workload_key = ?", f.workload_key);
  if (!f.template_name.empty()) add("template = ?", f.template_name);
  if (!f.target.empty()) add("target = ?", f.target);
  if (f.only_successful) {
    w.sql += w.sql.empty() ? " WHERE " : " AND ";
    w.sql += "mean_cost IS NOT NULL";
  }
  return w;
}

void BindWhere(Statement* q, const Where& w) {
  for (size_t i = 0; i < w.values.size(); ++i) q->Bind(static_cast<int>(i + 1), w.values[i]);
}

}  // namespace

std::string TemplateOfWorkload(const std::string& workload_key) {
  return workload_key.substr(0, workload_key.find('('));
}

int TemplateVersionOf(const tuning::MeasureRecord& record) {
  return record.template_version() == 0 ? 1 : record.template_version();
}

double MeanCost(const tuning::MeasureRecord& record) {
  if (record.error_kind() != tuning::OK || record.costs_size() == 0) {
    return std::numeric_limits<double>::infinity();
  }
  double sum = 0;
  for (double c : record.costs()) sum += c;
  return sum / record.costs_size();
}

TuningLog::TuningLog(std::unique_ptr<Database> db) : db_(std::move(db)) {}
TuningLog::~TuningLog() = default;

std::unique_ptr<TuningLog> TuningLog::Open(const std::string& path, bool create) {
  auto db = std::make_unique<Database>(path, create, ThrowLogError);
  // WAL lets readers (builds) and several writers (tuners) share the file.
  {
    Statement wal(*db, "PRAGMA journal_mode = WAL");
    wal.Step();
  }
  MigrateSchema(db.get());
  return std::unique_ptr<TuningLog>(new TuningLog(std::move(db)));
}

const std::string& TuningLog::path() const { return db_->path(); }

void TuningLog::Insert(const tuning::MeasureRecord& record) {
  const tuning::MeasureRecord r = WithConfigMessage(record);
  Statement q(*db_, std::string("INSERT INTO records (") + kColumns +
                        ", template, mean_cost) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  q.Bind(1, r.workload_key()).Bind(2, r.target()).Bind(3, r.device_key());
  q.Bind(4, static_cast<int64_t>(r.config_index())).Bind(5, r.config_json());
  q.Bind(6, CostsToText(r)).Bind(7, static_cast<int64_t>(r.error_kind()));
  q.Bind(8, r.error_message()).Bind(9, r.timestamp()).Bind(10, r.tuner_version());
  q.Bind(11, r.all_cost());
  if (r.has_config()) {
    q.BindBlob(12, r.config().SerializeAsString());
  } else {
    q.BindNull(12);
  }
  q.Bind(13, static_cast<int64_t>(TemplateVersionOf(r)));
  q.Bind(14, static_cast<int64_t>(r.in_model() ? 1 : 0));
  q.Bind(15, TemplateOfWorkload(r.workload_key()));
  double mean = MeanCost(r);
  if (std::isfinite(mean)) {
    q.Bind(16, mean);
  } else {
    q.BindNull(16);
  }
  q.Run();
}

void TuningLog::Append(const tuning::MeasureRecord& record) { AppendBatch({record}); }

void TuningLog::AppendBatch(const std::vector<tuning::MeasureRecord>& records) {
  Transaction transaction(*db_);
  for (const auto& r : records) Insert(r);
  transaction.Commit();
}

std::optional<tuning::MeasureRecord> TuningLog::Best(const std::string& workload_key,
                                                     const std::string& target) const {
  Statement q(*db_,
              std::string("SELECT ") + kColumns +
                  " FROM records WHERE workload_key = ? AND target = ? AND mean_cost IS NOT NULL"
                  " ORDER BY mean_cost ASC, id ASC LIMIT 1");
  q.Bind(1, workload_key).Bind(2, target);
  if (!q.Step()) return std::nullopt;
  return RowToRecord(q);
}

std::vector<tuning::MeasureRecord> TuningLog::List(const RecordFilter& filter) const {
  Where w = BuildWhere(filter);
  const std::string from = std::string(" FROM records") + w.sql;
  // With a limit: the newest `limit` rows, still returned in insertion order.
  const std::string sql = filter.limit < 0
                              ? std::string("SELECT ") + kColumns + from + " ORDER BY id ASC"
                              : std::string("SELECT ") + kColumns + " FROM (SELECT id, " +
                                    kColumns + from + " ORDER BY id DESC LIMIT " +
                                    std::to_string(filter.limit) + ") ORDER BY id ASC";
  Statement q(*db_, sql);
  BindWhere(&q, w);
  std::vector<tuning::MeasureRecord> out;
  while (q.Step()) out.push_back(RowToRecord(q));
  return out;
}

std::set<int64_t> TuningLog::MeasuredConfigs(const std::string& workload_key,
                                             const std::string& target) const {
  Statement q(*db_,
              "SELECT DISTINCT config_index FROM records WHERE workload_key = ? AND target = ? AND "
              "in_model = 0");
  q.Bind(1, workload_key).Bind(2, target);
  std::set<int64_t> out;
  while (q.Step()) out.insert(q.Int(0));
  return out;
}

std::vector<WorkloadStats> TuningLog::Stats(const RecordFilter& filter) const {
  Where w = BuildWhere(filter);
  Statement q(*db_,
              "SELECT workload_key, target, count(*), sum(mean_cost IS NULL), min(mean_cost)"
              " FROM records" +
                  w.sql + " GROUP BY workload_key, target ORDER BY workload_key, target");
  BindWhere(&q, w);
  std::vector<WorkloadStats> out;
  while (q.Step()) {
    WorkloadStats s;
    s.workload_key = q.Text(0);
    s.target = q.Text(1);
    s.records = q.Int(2);
    s.failures = q.Int(3);
    s.best_cost = q.IsNull(4) ? std::numeric_limits<double>::infinity() : q.Real(4);
    out.push_back(s);
  }
  return out;
}

int64_t TuningLog::Count() const {
  Statement q(*db_, "SELECT count(*) FROM records");
  q.Step();
  return q.Int(0);
}

std::string RecordToJson(const tuning::MeasureRecord& record) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string line;
  auto status = google::protobuf::util::MessageToJsonString(record, &line, options);
  if (!status.ok()) throw LogError("cannot print a record as JSON: " + status.ToString());
  return line;
}

int64_t TuningLog::ExportJsonLines(std::ostream& out, const RecordFilter& filter) const {
  int64_t n = 0;
  for (const auto& r : List(filter)) {
    out << RecordToJson(r) << '\n';
    ++n;
  }
  return n;
}

ImportResult TuningLog::ImportJsonLines(std::istream& in, const std::string& source) {
  std::vector<tuning::MeasureRecord> records;
  std::string line;
  int64_t line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    tuning::MeasureRecord r;
    auto status = google::protobuf::util::JsonStringToMessage(line, &r);
    if (!status.ok()) {
      throw LogError(source + ":" + std::to_string(line_number) + ": not a tuning record: " +
                     std::string(status.message()) + " (nothing was imported)");
    }
    if (r.workload_key().empty() || r.target().empty()) {
      throw LogError(source + ":" + std::to_string(line_number) +
                     ": a tuning record needs workload_key and target (nothing was imported)");
    }
    records.push_back(std::move(r));
  }
  return ImportRecords(records);
}

ImportResult TuningLog::ImportRecords(const std::vector<tuning::MeasureRecord>& records) {
  // A record's identity: same device, config, time and costs within its workload and target.
  using Identity = std::tuple<std::string, int64_t, double, std::string>;
  ImportResult result;
  Transaction transaction(*db_);
  // One read of each (workload, target) the batch touches, not one scan of it per record: a
  // shared log holds thousands of records per workload.
  std::map<std::pair<std::string, std::string>, std::set<Identity>> present;
  Statement existing(*db_,
                     "SELECT device_key, config_index, timestamp, costs FROM records"
                     " WHERE workload_key = ? AND target = ?");
  for (const auto& r : records) {
    auto group = present.find({r.workload_key(), r.target()});
    if (group == present.end()) {
      group =
          present.emplace(std::make_pair(r.workload_key(), r.target()), std::set<Identity>()).first;
      existing.Bind(1, r.workload_key()).Bind(2, r.target());
      while (existing.Step()) {
        group->second.emplace(existing.Text(0), existing.Int(1), existing.Real(2),
                              existing.Text(3));
      }
      existing.Reset();
    }
    // A time that is not a number equals nothing (as in SQL), and would break the set's order.
    const bool added = !std::isfinite(r.timestamp()) ||
                       group->second
                           .emplace(r.device_key(), static_cast<int64_t>(r.config_index()),
                                    r.timestamp(), CostsToText(r))
                           .second;
    if (added) {
      Insert(r);
      ++result.imported;
    } else {
      ++result.duplicates;
    }
  }
  transaction.Commit();
  return result;
}

}  // namespace records
}  // namespace tessera
