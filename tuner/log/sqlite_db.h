// Private to tuner/log: a thin RAII layer over the sqlite3 C API.
#ifndef TESSERA_TUNER_LOG_SQLITE_DB_H_
#define TESSERA_TUNER_LOG_SQLITE_DB_H_

#include <sqlite3.h>

#include <cstdint>
#include <string>

namespace tessera {
namespace tuner {

/// A prepared statement; bind with 1-based indices, step, read columns.
class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql, const std::string& where);
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  Statement& Bind(int index, const std::string& value);
  Statement& Bind(int index, int64_t value);
  Statement& Bind(int index, double value);
  Statement& BindNull(int index);
  /// Advances; true while a row is available.
  bool Step();
  /// Runs a statement that returns no rows.
  void Run();
  void Reset();

  std::string Text(int column) const;
  int64_t Int(int column) const;
  double Real(int column) const;
  bool IsNull(int column) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string where_;
};

/// An open database connection.
class Database {
 public:
  /// Opens (creating when `create`) the database at `path`; throws `LogError` naming it.
  Database(const std::string& path, bool create);
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database();

  /// Runs one or more statements without results.
  void Exec(const std::string& sql);
  sqlite3* get() const { return db_; }
  const std::string& path() const { return path_; }

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

/// Throws `LogError` "tuning log 'PATH': WHAT: sqlite message" for a failed sqlite call.
[[noreturn]] void ThrowSqliteError(sqlite3* db, const std::string& path, const std::string& what);

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_LOG_SQLITE_DB_H_
