#include "records/postgres_log.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "common/postgres.h"
#include "records/import_dedup.h"
#include "records/log_error.h"
#include "records/record_sql.h"
#include "records/schema.h"

namespace tessera {
namespace records {
namespace {

// Imports into one database queue on this advisory lock, so that two importers of the same
// records cannot both find them missing.
constexpr int64_t kImportLock = 0x7465737365726902;  // "tessera" + 2
// Rows per INSERT: one round trip per this many records (16 parameters each, under the
// protocol's 65535).
constexpr size_t kRowsPerInsert = 256;

void ThrowLogError(const PostgresFailure& failure) {
  if (failure.connecting) {
    throw LogError("cannot open tuning log '" + failure.location + "': " + failure.detail);
  }
  throw LogError("tuning log '" + failure.location + "': " + failure.what + ": " + failure.detail);
}

std::vector<PostgresParam> WhereParams(const Where& w) {
  return {w.values.begin(), w.values.end()};
}

class PostgresLog : public TuningLog {
 public:
  explicit PostgresLog(std::unique_ptr<PostgresConnection> db) : db_(std::move(db)) {}

  void AppendBatch(const std::vector<tuning::MeasureRecord>& records) override {
    PostgresTransaction transaction(*db_);
    Insert(records.begin(), records.end());
    transaction.Commit();
  }

  std::optional<tuning::MeasureRecord> Best(const std::string& workload_key,
                                            const std::string& target) const override {
    PostgresRows rows = db_->Query(BestSql(), {workload_key, target});
    if (rows.size() == 0) return std::nullopt;
    return RowToRecord(PostgresRow(rows, 0));
  }

  std::vector<tuning::MeasureRecord> List(const RecordFilter& filter) const override {
    const Where w = BuildWhere(filter);
    PostgresRows rows = db_->Query(ListSql(w, filter.limit), WhereParams(w));
    std::vector<tuning::MeasureRecord> out;
    out.reserve(static_cast<size_t>(rows.size()));
    for (int i = 0; i < rows.size(); ++i) out.push_back(RowToRecord(PostgresRow(rows, i)));
    return out;
  }

  std::vector<tuning::MeasureRecord> RecordsAfter(const RecordFilter& filter, int64_t after_id,
                                                  int64_t batch, int64_t* last_id) const override {
    const Where w = BuildWhere(filter);
    std::vector<PostgresParam> params = WhereParams(w);
    params.emplace_back(after_id);
    PostgresRows rows = db_->Query(ScanSql(w, batch), params);
    std::vector<tuning::MeasureRecord> records;
    records.reserve(static_cast<size_t>(rows.size()));
    for (int i = 0; i < rows.size(); ++i) records.push_back(RowToRecord(PostgresRow(rows, i)));
    if (rows.size() > 0) *last_id = rows.Int(rows.size() - 1, kScanIdColumn);
    return records;
  }

  std::set<int64_t> MeasuredConfigs(const std::string& workload_key,
                                    const std::string& target) const override {
    PostgresRows rows = db_->Query(MeasuredConfigsSql(), {workload_key, target});
    std::set<int64_t> out;
    for (int i = 0; i < rows.size(); ++i) out.insert(rows.Int(i, 0));
    return out;
  }

  std::vector<WorkloadStats> Stats(const RecordFilter& filter) const override {
    const Where w = BuildWhere(filter);
    PostgresRows rows = db_->Query(StatsSql(w), WhereParams(w));
    std::vector<WorkloadStats> out;
    for (int i = 0; i < rows.size(); ++i) {
      WorkloadStats s;
      s.workload_key = rows.Text(i, 0);
      s.target = rows.Text(i, 1);
      s.records = rows.Int(i, 2);
      s.failures = rows.Int(i, 3);
      s.best_cost = rows.IsNull(i, 4) ? std::numeric_limits<double>::infinity() : rows.Real(i, 4);
      out.push_back(s);
    }
    return out;
  }

  int64_t Count() const override { return db_->Query(CountSql()).Int(0, 0); }

  ImportResult ImportRecords(const std::vector<tuning::MeasureRecord>& records) override {
    ImportResult result;
    PostgresTransaction transaction(*db_, kImportLock);
    ImportDedup dedup([&](const std::string& key, const std::string& target) {
      PostgresRows rows = db_->Query(IdentitiesSql(), {key, target});
      std::vector<RecordIdentity> stored;
      stored.reserve(static_cast<size_t>(rows.size()));
      for (int i = 0; i < rows.size(); ++i) {
        stored.emplace_back(rows.Text(i, 0), rows.Int(i, 1), rows.Real(i, 2), rows.Text(i, 3));
      }
      return stored;
    });
    std::vector<tuning::MeasureRecord> added;
    for (const auto& r : records) {
      if (dedup.IsNew(r)) {
        added.push_back(r);
      } else {
        ++result.duplicates;
      }
    }
    Insert(added.begin(), added.end());
    result.imported = static_cast<int64_t>(added.size());
    transaction.Commit();
    return result;
  }

  const std::string& path() const override { return db_->uri(); }

 private:
  using Iterator = std::vector<tuning::MeasureRecord>::const_iterator;

  void Insert(Iterator begin, Iterator end) {
    while (begin != end) {
      const size_t rows = std::min(kRowsPerInsert, static_cast<size_t>(end - begin));
      std::vector<PostgresParam> params;
      params.reserve(rows * 16);
      for (size_t i = 0; i < rows; ++i, ++begin) {
        for (const SqlValue& v : InsertValues(*begin)) params.emplace_back(v);
      }
      db_->Query(InsertSql(static_cast<int>(rows)), params);
    }
  }

  std::unique_ptr<PostgresConnection> db_;
};

}  // namespace

std::unique_ptr<TuningLog> OpenPostgresLog(const std::string& uri, bool create) {
  auto db = std::make_unique<PostgresConnection>(uri, ThrowLogError);
  MigrateSchema(db.get(), create);
  return std::make_unique<PostgresLog>(std::move(db));
}

}  // namespace records
}  // namespace tessera
