#include "records/record_sql.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>

#include "records/tuning_log.h"

namespace tessera {
namespace records {

const char* const kRecordColumns =
    "workload_key, target, device_key, config_index, config_json, costs, error_kind, "
    "error_message, timestamp, tuner_version, all_cost, config, template_version, in_model, "
    "cold_weights";

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

namespace internal {
void CostsFromText(const std::string& text, tuning::MeasureRecord* r) {
  nlohmann::json costs = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!costs.is_array()) return;
  for (const nlohmann::json& cost : costs) {
    if (cost.is_number()) r->add_costs(cost.get<double>());
  }
}
}  // namespace internal

std::string InsertSql(int rows) {
  std::string sql =
      std::string("INSERT INTO records (") + kRecordColumns + ", template, mean_cost) VALUES ";
  for (int i = 0; i < rows; ++i)
    sql += i ? ",(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)" : "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
  return sql;
}

std::vector<SqlValue> InsertValues(const tuning::MeasureRecord& record) {
  const tuning::MeasureRecord r = WithConfigMessage(record);
  const double mean = MeanCost(r);
  return {
      r.workload_key(),
      r.target(),
      r.device_key(),
      static_cast<int64_t>(r.config_index()),
      r.config_json(),
      CostsToText(r),
      static_cast<int64_t>(r.error_kind()),
      r.error_message(),
      static_cast<double>(r.timestamp()),
      r.tuner_version(),
      static_cast<double>(r.all_cost()),
      r.has_config() ? SqlValue::Bytes(r.config().SerializeAsString()) : SqlValue::Null(),
      static_cast<int64_t>(TemplateVersionOf(r)),
      r.in_model() ? 1 : 0,
      r.cold_weights() ? 1 : 0,
      TemplateOfWorkload(r.workload_key()),
      std::isfinite(mean) ? SqlValue(mean) : SqlValue::Null(),
  };
}

std::string BestSql() {
  return std::string("SELECT ") + kRecordColumns +
         " FROM records WHERE workload_key = ? AND target = ? AND mean_cost IS NOT NULL"
         " ORDER BY cold_weights DESC, mean_cost ASC, id ASC LIMIT 1";
}

std::string MeasuredConfigsSql() {
  return "SELECT DISTINCT config_index FROM records WHERE workload_key = ? AND target = ? AND "
         "in_model = 0";
}

std::string IdentitiesSql() {
  return "SELECT device_key, config_index, timestamp, costs FROM records"
         " WHERE workload_key = ? AND target = ?";
}

std::string CountSql() { return "SELECT count(*) FROM records"; }

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

std::string ListSql(const Where& w, int64_t limit) {
  const std::string from = std::string(" FROM records") + w.sql;
  if (limit < 0) return std::string("SELECT ") + kRecordColumns + from + " ORDER BY id ASC";
  return std::string("SELECT ") + kRecordColumns + " FROM (SELECT id, " + kRecordColumns + from +
         " ORDER BY id DESC LIMIT " + std::to_string(limit) + ") AS newest ORDER BY id ASC";
}

std::string ScanSql(const Where& w, int64_t batch) {
  return std::string("SELECT ") + kRecordColumns + ", id FROM records" + w.sql +
         (w.sql.empty() ? " WHERE " : " AND ") + "id > ? ORDER BY id ASC LIMIT " +
         std::to_string(batch);
}

std::string StatsSql(const Where& w) {
  // count(*) - count(mean_cost) counts the failures in both dialects.
  return "SELECT workload_key, target, count(*), count(*) - count(mean_cost), min(mean_cost)"
         " FROM records" +
         w.sql + " GROUP BY workload_key, target ORDER BY workload_key, target";
}

}  // namespace records
}  // namespace tessera
