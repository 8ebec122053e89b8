/// \file
/// A thin RAII layer over libpq, shared by every store that can live in PostgreSQL (the tuning
/// log, the tracker's state). Queries are written with `?` placeholders, as for SQLite; parameters
/// travel as text (bytes as binary), results come back as text. Each owner says how a failure
/// reads: a `PostgresErrorHandler` turns a `PostgresFailure` into the owner's exception type.
///
/// Credentials never travel in the location: `OpenPostgres` refuses a URI with a password; libpq
/// reads it from `PGPASSWORD` or the pgpass file (`PGPASSFILE`, default `~/.pgpass`).
#ifndef TESSERA_COMMON_POSTGRES_H_
#define TESSERA_COMMON_POSTGRES_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/sql_value.h"

struct pg_conn;
struct pg_result;

namespace tessera {

/// True for a PostgreSQL location: `postgresql://…` or `postgres://…`.
bool IsPostgresUri(const std::string& location);

/// What went wrong in a libpq call.
struct PostgresFailure {
  std::string location;     ///< the URI connected to (never holds a password)
  std::string what;         ///< our step: "connecting", "running a query", ...
  std::string detail;       ///< the server's or libpq's message
  std::string sqlstate;     ///< the SQLSTATE code when the server sent one
  bool connecting = false;  ///< the server could not be reached or refused the login
};

/// Throws the owner's error for `failure`; it must not return.
using PostgresErrorHandler = std::function<void(const PostgresFailure& failure)>;

/// One query parameter: text, bytes (sent binary, for BYTEA), or NULL.
struct PostgresParam {
  /// A text parameter.
  PostgresParam(std::string text) : value(std::move(text)) {}  // NOLINT: implicit on purpose
  /// A text parameter.
  PostgresParam(const char* text) : value(std::string(text)) {}  // NOLINT
  /// An integer, as text.
  PostgresParam(int64_t number);  // NOLINT
  /// A real, as text that reads back to the same double (NaN and infinities included).
  PostgresParam(double number);  // NOLINT
  /// `value` as its kind says (bytes binary, for BYTEA).
  PostgresParam(const SqlValue& value);  // NOLINT: implicit, so a query takes SqlValues as they are
  /// Bytes for a BYTEA column.
  static PostgresParam Bytes(std::string bytes);
  /// NULL.
  static PostgresParam Null();

  std::optional<std::string> value;  ///< nullopt is NULL
  bool binary = false;               ///< sent in binary format (bytes)
};

/// The rows of one query, read as text.
class PostgresRows {
 public:
  /// Takes ownership of `result`.
  explicit PostgresRows(pg_result* result);
  PostgresRows(PostgresRows&& other) noexcept;
  PostgresRows(const PostgresRows&) = delete;
  PostgresRows& operator=(const PostgresRows&) = delete;
  /// Frees the result.
  ~PostgresRows();

  /// Number of rows.
  int size() const;
  /// The rows changed by an INSERT, UPDATE or DELETE.
  int64_t affected() const;
  /// A column as text.
  std::string Text(int row, int column) const;
  /// A BYTEA column's bytes.
  std::string Bytes(int row, int column) const;
  /// A column as an integer.
  int64_t Int(int row, int column) const;
  /// A column as a real (PostgreSQL's NaN and Infinity included).
  double Real(int row, int column) const;
  /// True when the column is NULL.
  bool IsNull(int row, int column) const;

 private:
  pg_result* result_ = nullptr;
};

/// One row of a `PostgresRows`, read like a SQLite statement's current row.
class PostgresRow {
 public:
  /// Row `row` of `rows`, which must outlive it.
  PostgresRow(const PostgresRows& rows, int row) : rows_(rows), row_(row) {}
  /// A column as text.
  std::string Text(int column) const { return rows_.Text(row_, column); }
  /// A BYTEA column's bytes.
  std::string Bytes(int column) const { return rows_.Bytes(row_, column); }
  /// A column as an integer.
  int64_t Int(int column) const { return rows_.Int(row_, column); }
  /// A column as a real.
  double Real(int column) const { return rows_.Real(row_, column); }
  /// True when the column is NULL.
  bool IsNull(int column) const { return rows_.IsNull(row_, column); }

 private:
  const PostgresRows& rows_;
  int row_;
};

/// An open connection to a PostgreSQL server. Not thread-safe: one per thread or under a lock.
/// A call on a connection that broke (the server restarted, the network dropped) connects again
/// first; the call that found it broken failed with the server's message.
class PostgresConnection {
 public:
  /// Connects to `uri` (which must not hold a password); failures, now and later, go to
  /// `on_error`.
  PostgresConnection(const std::string& uri, PostgresErrorHandler on_error);
  PostgresConnection(const PostgresConnection&) = delete;
  PostgresConnection& operator=(const PostgresConnection&) = delete;
  /// Closes the connection.
  ~PostgresConnection();

  /// Runs one or more statements without parameters or results.
  void Exec(const std::string& sql);
  /// Runs one statement with `?` placeholders bound to `params`, in order. Each distinct `sql` is
  /// prepared once per connection and reused (a tuner's batch insert is parsed and planned once).
  PostgresRows Query(const std::string& sql, const std::vector<PostgresParam>& params = {});
  /// The URI it was opened with.
  const std::string& uri() const { return uri_; }

 private:
  [[noreturn]] void Fail(const std::string& what, pg_result* result) const;
  [[noreturn]] void Throw(const PostgresFailure& failure) const;
  void Reconnect();
  pg_conn* conn_ = nullptr;
  std::string uri_;
  std::map<std::string, std::string> prepared_;  // sql → statement name
  mutable bool broken_ = false;                  // the last call failed on the connection
  PostgresErrorHandler on_error_;
};

/// A transaction that rolls back unless committed. With a `lock_key`, it first takes that
/// transaction-scoped advisory lock, so that writers of one kind (migrations, imports) queue.
class PostgresTransaction {
 public:
  /// Begins the transaction on `connection`, which must outlive it.
  explicit PostgresTransaction(PostgresConnection& connection,
                               std::optional<int64_t> lock_key = std::nullopt);
  PostgresTransaction(const PostgresTransaction&) = delete;
  PostgresTransaction& operator=(const PostgresTransaction&) = delete;
  /// Rolls back unless `Commit` ran; never throws.
  ~PostgresTransaction();
  /// Commits.
  void Commit();

 private:
  PostgresConnection& connection_;
  bool committed_ = false;
};

}  // namespace tessera

#endif  // TESSERA_COMMON_POSTGRES_H_
