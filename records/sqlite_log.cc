#include "records/sqlite_log.h"

#include <limits>
#include <utility>

#include "common/sqlite.h"
#include "records/import_dedup.h"
#include "records/log_error.h"
#include "records/record_sql.h"
#include "records/schema.h"

namespace tessera {
namespace records {
namespace {

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

// A statement's current row, read as `RowToRecord` expects (a BLOB's bytes come as text).
struct SqliteRow {
  const Statement& q;
  std::string Text(int c) const { return q.Text(c); }
  std::string Bytes(int c) const { return q.Text(c); }
  int64_t Int(int c) const { return q.Int(c); }
  double Real(int c) const { return q.Real(c); }
  bool IsNull(int c) const { return q.IsNull(c); }
};

int BindWhere(Statement* q, const Where& w) {
  for (size_t i = 0; i < w.values.size(); ++i) q->Bind(static_cast<int>(i + 1), w.values[i]);
  return static_cast<int>(w.values.size());
}

class SqliteLog : public TuningLog {
 public:
  explicit SqliteLog(std::unique_ptr<Database> db) : db_(std::move(db)) {}

  void AppendBatch(const std::vector<tuning::MeasureRecord>& records) override {
    Transaction transaction(*db_);
    Statement insert(*db_, InsertSql());
    for (const auto& r : records) Insert(&insert, r);
    transaction.Commit();
  }

  std::optional<tuning::MeasureRecord> Best(const std::string& workload_key,
                                            const std::string& target) const override {
    Statement q(*db_, BestSql());
    q.Bind(1, workload_key).Bind(2, target);
    if (!q.Step()) return std::nullopt;
    return RowToRecord(SqliteRow{q});
  }

  std::vector<tuning::MeasureRecord> List(const RecordFilter& filter) const override {
    const Where w = BuildWhere(filter);
    Statement q(*db_, ListSql(w, filter.limit));
    BindWhere(&q, w);
    std::vector<tuning::MeasureRecord> out;
    while (q.Step()) out.push_back(RowToRecord(SqliteRow{q}));
    return out;
  }

  std::vector<tuning::MeasureRecord> RecordsAfter(const RecordFilter& filter, int64_t after_id,
                                                  int64_t batch, int64_t* last_id) const override {
    const Where w = BuildWhere(filter);
    Statement q(*db_, ScanSql(w, batch));
    q.Bind(BindWhere(&q, w) + 1, after_id);
    std::vector<tuning::MeasureRecord> records;
    while (q.Step()) {
      records.push_back(RowToRecord(SqliteRow{q}));
      *last_id = q.Int(kScanIdColumn);
    }
    return records;
  }

  std::set<int64_t> MeasuredConfigs(const std::string& workload_key,
                                    const std::string& target) const override {
    Statement q(*db_, MeasuredConfigsSql());
    q.Bind(1, workload_key).Bind(2, target);
    std::set<int64_t> out;
    while (q.Step()) out.insert(q.Int(0));
    return out;
  }

  std::vector<WorkloadStats> Stats(const RecordFilter& filter) const override {
    const Where w = BuildWhere(filter);
    Statement q(*db_, StatsSql(w));
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

  int64_t Count() const override {
    Statement q(*db_, CountSql());
    q.Step();
    return q.Int(0);
  }

  ImportResult ImportRecords(const std::vector<tuning::MeasureRecord>& records) override {
    ImportResult result;
    Transaction transaction(*db_);  // BEGIN IMMEDIATE: one importer at a time
    Statement existing(*db_, IdentitiesSql());
    ImportDedup dedup([&](const std::string& key, const std::string& target) {
      existing.Bind(1, key).Bind(2, target);
      std::vector<RecordIdentity> stored;
      while (existing.Step()) {
        stored.emplace_back(existing.Text(0), existing.Int(1), existing.Real(2), existing.Text(3));
      }
      existing.Reset();
      return stored;
    });
    Statement insert(*db_, InsertSql());
    for (const auto& r : records) {
      if (dedup.IsNew(r)) {
        Insert(&insert, r);
        ++result.imported;
      } else {
        ++result.duplicates;
      }
    }
    transaction.Commit();
    return result;
  }

  const std::string& path() const override { return db_->path(); }

 private:
  static void Insert(Statement* insert, const tuning::MeasureRecord& r) {
    const std::vector<SqlValue> values = InsertValues(r);
    for (size_t i = 0; i < values.size(); ++i) insert->Bind(static_cast<int>(i + 1), values[i]);
    insert->Run();
  }

  std::unique_ptr<Database> db_;
};

}  // namespace

std::unique_ptr<TuningLog> OpenSqliteLog(const std::string& path, bool create) {
  auto db = std::make_unique<Database>(path, create, ThrowLogError);
  // WAL lets readers (builds) and several writers (tuners) share the file.
  {
    Statement wal(*db, "PRAGMA journal_mode = WAL");
    wal.Step();
  }
  MigrateSchema(db.get());
  return std::make_unique<SqliteLog>(std::move(db));
}

}  // namespace records
}  // namespace tessera
