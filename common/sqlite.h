/// \file
/// A thin RAII layer over the sqlite3 C API, shared by the tuning log and the tracker's state.
/// Each owner says how a failure reads: a `SqliteErrorHandler` turns a `SqliteFailure` into the
/// owner's exception type and message (and must throw).
#ifndef TESSERA_COMMON_SQLITE_H_
#define TESSERA_COMMON_SQLITE_H_

#include <cstdint>
#include <functional>
#include <string>

#include "common/sql_value.h"

struct sqlite3;
struct sqlite3_stmt;

namespace tessera {

/// What went wrong in a sqlite call.
struct SqliteFailure {
  std::string path;      ///< the database file
  std::string what;      ///< our step: "opening", "preparing a query", ...
  std::string detail;    ///< sqlite's message
  bool opening = false;  ///< the file could not be opened at all
  bool corrupt = false;  ///< the file is corrupt or not a database
};

/// Throws the owner's error for `failure`; it must not return.
using SqliteErrorHandler = std::function<void(const SqliteFailure& failure)>;

/// An open database connection (serialized mode: one connection may serve several threads).
class Database {
 public:
  /// Opens (creating when `create`) the database at `path`, waiting up to `busy_timeout_ms` for
  /// another process's lock. Failures, now and later, go to `on_error`.
  Database(const std::string& path, bool create, SqliteErrorHandler on_error,
           int busy_timeout_ms = 30000);
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  /// Closes the connection.
  ~Database();

  /// Runs one or more statements without results.
  void Exec(const std::string& sql);
  /// The raw handle, for calls this wrapper does not cover.
  sqlite3* get() const { return db_; }
  /// The file it was opened from.
  const std::string& path() const { return path_; }
  /// Reports the connection's last error as a failure of `what` (never returns).
  [[noreturn]] void Fail(const std::string& what) const;

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
  SqliteErrorHandler on_error_;
};

/// A write transaction (BEGIN IMMEDIATE) that rolls back unless committed, so that an error
/// half-way leaves nothing half-written.
class Transaction {
 public:
  /// Begins the transaction on `db`, which must outlive it.
  explicit Transaction(Database& db);
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  /// Rolls back unless `Commit` ran; never throws (the error that unwinds is the one to report).
  ~Transaction();
  /// Commits.
  void Commit();

 private:
  Database& db_;
  bool committed_ = false;
};

/// A prepared statement; bind with 1-based indices, step, read columns (0-based).
class Statement {
 public:
  /// Prepares `sql` on `db`.
  Statement(const Database& db, const std::string& sql);
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  /// Finalizes the statement.
  ~Statement();

  /// Binds text.
  Statement& Bind(int index, const std::string& value);
  /// Binds an integer.
  Statement& Bind(int index, int64_t value);
  /// Binds a real.
  Statement& Bind(int index, double value);
  /// Binds bytes as a BLOB.
  Statement& BindBlob(int index, const std::string& bytes);
  /// Binds NULL.
  Statement& BindNull(int index);
  /// Binds `value` as its kind says (bytes as a BLOB).
  Statement& Bind(int index, const SqlValue& value);
  /// Advances; true while a row is available.
  bool Step();
  /// Runs a statement that returns no rows, then resets it for the next bindings.
  void Run();
  /// Resets the statement and clears its bindings.
  void Reset();

  /// A column as text (or the bytes of a BLOB).
  std::string Text(int column) const;
  /// A column as an integer.
  int64_t Int(int column) const;
  /// A column as a real.
  double Real(int column) const;
  /// True when the column is NULL.
  bool IsNull(int column) const;

 private:
  const Database& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace tessera

#endif  // TESSERA_COMMON_SQLITE_H_
