#include "tuner/log/sqlite_db.h"

#include "tuner/log/log_error.h"

namespace tessera {
namespace tuner {

void ThrowSqliteError(sqlite3* db, const std::string& path, const std::string& what) {
  int code = db ? sqlite3_extended_errcode(db) : SQLITE_ERROR;
  std::string detail = db ? sqlite3_errmsg(db) : "out of memory";
  if ((code & 0xff) == SQLITE_NOTADB || (code & 0xff) == SQLITE_CORRUPT) {
    throw LogError("tuning log '" + path + "' is corrupt or not a Tessera tuning log (" + detail +
                   ")");
  }
  throw LogError("tuning log '" + path + "': " + what + ": " + detail);
}

Statement::Statement(sqlite3* db, const std::string& sql, const std::string& where)
    : db_(db), where_(where) {
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK) {
    ThrowSqliteError(db, where_, "preparing a query");
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
Statement& Statement::BindNull(int index) {
  sqlite3_bind_null(stmt_, index);
  return *this;
}

bool Statement::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  ThrowSqliteError(db_, where_, "running a query");
}

void Statement::Run() {
  while (Step()) {
  }
  Reset();
}

void Statement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::string Statement::Text(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  return text ? std::string(reinterpret_cast<const char*>(text),
                            static_cast<size_t>(sqlite3_column_bytes(stmt_, column)))
              : std::string();
}
int64_t Statement::Int(int column) const { return sqlite3_column_int64(stmt_, column); }
double Statement::Real(int column) const { return sqlite3_column_double(stmt_, column); }
bool Statement::IsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

Database::Database(const std::string& path, bool create) : path_(path) {
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    std::string detail = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw LogError("cannot open tuning log '" + path + "': " + detail);
  }
  // Several tuner processes write at once: wait for the lock rather than fail.
  sqlite3_busy_timeout(db_, 30000);
}

Database::~Database() { sqlite3_close(db_); }

void Database::Exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    sqlite3_free(err);
    ThrowSqliteError(db_, path_, "executing '" + sql.substr(0, 40) + "...'");
  }
}

}  // namespace tuner
}  // namespace tessera
