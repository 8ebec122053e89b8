/// \file
/// One connection to a database of the tracker's, a SQLite file in its `--state` directory or a
/// PostgreSQL database that several trackers share, so that its stores (`JobStore`,
/// `StateStore`) write each query once. Queries use `?` placeholders in both.
#ifndef TESSERA_TRACKER_STATE_SQL_H_
#define TESSERA_TRACKER_STATE_SQL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/sql_value.h"

namespace tessera {
namespace tracker {

/// One row of a result, read by 0-based column.
class SqlRow {
 public:
  virtual ~SqlRow() = default;
  /// A column as text.
  virtual std::string Text(int column) const = 0;
  /// A BLOB or BYTEA column's bytes.
  virtual std::string Bytes(int column) const = 0;
  /// A column as an integer.
  virtual int64_t Int(int column) const = 0;
  /// A column as a real.
  virtual double Real(int column) const = 0;
  /// True when the column is NULL.
  virtual bool IsNull(int column) const = 0;
};

/// An open connection; not thread-safe. Failures throw `ConfigError` naming the database.
class TrackerSql {
 public:
  virtual ~TrackerSql() = default;
  /// Runs one or more statements without parameters or results.
  virtual void Exec(const std::string& sql) = 0;
  /// Runs one statement with `params` bound in order, calling `row` for each result row.
  virtual void Query(const std::string& sql, const std::vector<SqlValue>& params,
                     const std::function<void(const SqlRow&)>& row = nullptr) = 0;
  /// Begins a write transaction.
  virtual void Begin() = 0;
  /// True for PostgreSQL.
  virtual bool postgres() const = 0;
  /// The file or URI, for messages.
  virtual const std::string& where() const = 0;

  /// The first row's first column as an integer (0 when there is no row).
  int64_t QueryInt(const std::string& sql, const std::vector<SqlValue>& params = {});
};

/// `dir/file`, created when missing (WAL mode); failures are `ConfigError`s naming `label`
/// ("tracker jobs") and the file.
std::unique_ptr<TrackerSql> OpenSqliteState(const std::string& dir, const std::string& file,
                                            const std::string& label);
/// The PostgreSQL database at `uri` (no password in it: PGPASSWORD or pgpass); failures are
/// `ConfigError`s naming `label` and the URI.
std::unique_ptr<TrackerSql> OpenPostgresState(const std::string& uri, const std::string& label);

/// A transaction that rolls back unless committed. With a `lock_key`, on PostgreSQL it first
/// takes that transaction-scoped advisory lock, so that trackers doing the same thing at once
/// (creating the tables) queue, as `PostgresTransaction` does; SQLite's write transaction is
/// exclusive already.
class SqlTransaction {
 public:
  /// Begins on `sql`, which must outlive it.
  explicit SqlTransaction(TrackerSql& sql, std::optional<int64_t> lock_key = std::nullopt);
  SqlTransaction(const SqlTransaction&) = delete;
  SqlTransaction& operator=(const SqlTransaction&) = delete;
  /// Rolls back unless `Commit` ran; never throws.
  ~SqlTransaction();
  /// Commits.
  void Commit();

 private:
  void RollBack() noexcept;

  TrackerSql& sql_;
  bool committed_ = false;
};

}  // namespace tracker
}  // namespace tessera

#endif  // TESSERA_TRACKER_STATE_SQL_H_
