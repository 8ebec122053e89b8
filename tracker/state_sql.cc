#include "tracker/state_sql.h"

#include <map>
#include <utility>

#include "common/error.h"
#include "common/postgres.h"
#include "common/sqlite.h"
#include "tracker/state_db.h"

namespace tessera {
namespace tracker {
namespace {

class SqliteRow : public SqlRow {
 public:
  explicit SqliteRow(const Statement& statement) : statement_(statement) {}
  std::string Text(int column) const override { return statement_.Text(column); }
  std::string Bytes(int column) const override { return statement_.Text(column); }
  int64_t Int(int column) const override { return statement_.Int(column); }
  double Real(int column) const override { return statement_.Real(column); }
  bool IsNull(int column) const override { return statement_.IsNull(column); }

 private:
  const Statement& statement_;
};

class SqliteState : public TrackerSql {
 public:
  SqliteState(const std::string& dir, const std::string& file, const std::string& label)
      : db_(OpenStateDatabase(dir, file, label)) {}

  void Exec(const std::string& sql) override { db_->Exec(sql); }

  void Query(const std::string& sql, const std::vector<SqlValue>& params,
             const std::function<void(const SqlRow&)>& row) override {
    std::unique_ptr<Statement>& statement = prepared_[sql];
    if (!statement) statement = std::make_unique<Statement>(*db_, sql);
    statement->Reset();
    for (size_t i = 0; i < params.size(); ++i) statement->Bind(static_cast<int>(i) + 1, params[i]);
    SqliteRow current(*statement);
    while (statement->Step()) {
      if (row) row(current);
    }
    statement->Reset();
  }

  void Begin() override { db_->Exec("BEGIN IMMEDIATE"); }
  bool postgres() const override { return false; }
  const std::string& where() const override { return db_->path(); }

 private:
  std::unique_ptr<Database> db_;
  std::map<std::string, std::unique_ptr<Statement>> prepared_;  // declared after db_: freed first
};

class PostgresStateRow : public SqlRow {
 public:
  PostgresStateRow(const PostgresRows& rows, int row) : row_(rows, row) {}
  std::string Text(int column) const override { return row_.Text(column); }
  std::string Bytes(int column) const override { return row_.Bytes(column); }
  int64_t Int(int column) const override { return row_.Int(column); }
  double Real(int column) const override { return row_.Real(column); }
  bool IsNull(int column) const override { return row_.IsNull(column); }

 private:
  PostgresRow row_;
};

// Every failure of a tracker's database is the operator's to fix (the server down, a full disk,
// a role without rights), as for the tracker's SQLite files.
PostgresErrorHandler ThrowStateError(const std::string& label) {
  return [label](const PostgresFailure& failure) {
    if (failure.connecting) {
      throw ConfigError("cannot open " + label + " '" + failure.location + "': " + failure.detail);
    }
    throw ConfigError(label + " '" + failure.location + "': " + failure.what + ": " +
                      failure.detail);
  };
}

class PostgresState : public TrackerSql {
 public:
  PostgresState(const std::string& uri, const std::string& label)
      : db_(std::make_unique<PostgresConnection>(uri, ThrowStateError(label))) {}

  void Exec(const std::string& sql) override { db_->Exec(sql); }

  void Query(const std::string& sql, const std::vector<SqlValue>& params,
             const std::function<void(const SqlRow&)>& row) override {
    PostgresRows rows = db_->Query(sql, {params.begin(), params.end()});
    if (!row) return;
    for (int i = 0; i < rows.size(); ++i) row(PostgresStateRow(rows, i));
  }

  void Begin() override { db_->Exec("BEGIN"); }
  bool postgres() const override { return true; }
  const std::string& where() const override { return db_->uri(); }

 private:
  std::unique_ptr<PostgresConnection> db_;
};

}  // namespace

int64_t TrackerSql::QueryInt(const std::string& sql, const std::vector<SqlValue>& params) {
  int64_t value = 0;
  bool first = true;
  Query(sql, params, [&](const SqlRow& row) {
    if (first && !row.IsNull(0)) value = row.Int(0);
    first = false;
  });
  return value;
}

std::unique_ptr<TrackerSql> OpenSqliteState(const std::string& dir, const std::string& file,
                                            const std::string& label) {
  return std::make_unique<SqliteState>(dir, file, label);
}

std::unique_ptr<TrackerSql> OpenPostgresState(const std::string& uri, const std::string& label) {
  return std::make_unique<PostgresState>(uri, label);
}

SqlTransaction::SqlTransaction(TrackerSql& sql, std::optional<int64_t> lock_key) : sql_(sql) {
  sql_.Begin();
  if (!lock_key || !sql_.postgres()) return;
  try {
    sql_.Query("SELECT pg_advisory_xact_lock(?)", {*lock_key});
  } catch (...) {
    RollBack();  // no destructor runs for a constructor that throws
    throw;
  }
}

SqlTransaction::~SqlTransaction() {
  if (!committed_) RollBack();
}

void SqlTransaction::RollBack() noexcept {
  try {
    sql_.Exec("ROLLBACK");
  } catch (...) {  // NOLINT: the error that unwinds is the one to report
  }
}

void SqlTransaction::Commit() {
  sql_.Exec("COMMIT");
  committed_ = true;
}

}  // namespace tracker
}  // namespace tessera
