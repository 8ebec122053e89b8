#include "common/sqlite.h"

#include <sqlite3.h>

#include "common/error.h"

namespace tessera {

Database::Database(const std::string& path, bool create, SqliteErrorHandler on_error,
                   int busy_timeout_ms)
    : path_(path), on_error_(std::move(on_error)) {
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    SqliteFailure failure{path, "opening", db_ ? sqlite3_errmsg(db_) : "out of memory"};
    failure.opening = true;
    sqlite3_close(db_);
    db_ = nullptr;
    on_error_(failure);
    throw InternalError("the sqlite error handler of '" + path + "' returned");
  }
  sqlite3_busy_timeout(db_, busy_timeout_ms);
}

Database::~Database() { sqlite3_close(db_); }

void Database::Fail(const std::string& what) const {
  int code = db_ ? sqlite3_extended_errcode(db_) & 0xff : SQLITE_ERROR;
  SqliteFailure failure{path_, what, db_ ? sqlite3_errmsg(db_) : "out of memory"};
  failure.corrupt = code == SQLITE_NOTADB || code == SQLITE_CORRUPT;
  on_error_(failure);
  throw InternalError("the sqlite error handler of '" + path_ + "' returned");
}

void Database::Exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    sqlite3_free(err);
    Fail("executing '" + sql.substr(0, 40) + "...'");
  }
}

Statement::Statement(const Database& db, const std::string& sql) : db_(db) {
  if (sqlite3_prepare_v2(db.get(), sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK) {
    db_.Fail("preparing a query");
  }
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::Bind(int index, const std::string& value) {
  sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
  return *this;
}
Statement& Statement::Bind(int index, int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
  return *this;
}
Statement& Statement::Bind(int index, double value) {
  sqlite3_bind_double(stmt_, index, value);
  return *this;
}
Statement& Statement::BindBlob(int index, const std::string& bytes) {
  sqlite3_bind_blob(stmt_, index, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
  return *this;
}
Statement& Statement::BindNull(int index) {
  sqlite3_bind_null(stmt_, index);
  return *this;
}

Statement& Statement::Bind(int index, const SqlValue& v) {
  switch (v.kind) {
    case SqlValue::kInt:
      return Bind(index, v.integer);
    case SqlValue::kReal:
      return Bind(index, v.real);
    case SqlValue::kText:
      return Bind(index, v.text);
    case SqlValue::kBytes:
      return BindBlob(index, v.text);
    case SqlValue::kNull:
      break;
  }
  return BindNull(index);
}

bool Statement::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_.Fail("running a query");
}

void Statement::Run() {
  while (Step()) {
  }
  Reset();
}

Transaction::Transaction(Database& db) : db_(db) { db_.Exec("BEGIN IMMEDIATE"); }

Transaction::~Transaction() {
  if (!committed_) sqlite3_exec(db_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::Commit() {
  db_.Exec("COMMIT");
  committed_ = true;
}

void Statement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::string Statement::Text(int column) const {
  // sqlite3_column_blob returns the bytes of TEXT and BLOB columns alike, NULs included.
  const void* bytes = sqlite3_column_blob(stmt_, column);
  return bytes ? std::string(static_cast<const char*>(bytes),
                             static_cast<size_t>(sqlite3_column_bytes(stmt_, column)))
               : std::string();
}
int64_t Statement::Int(int column) const { return sqlite3_column_int64(stmt_, column); }
double Statement::Real(int column) const { return sqlite3_column_double(stmt_, column); }
bool Statement::IsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

}  // namespace tessera
