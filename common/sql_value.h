/// \file
/// A value bound to a `?` placeholder of a SQL statement, for both stores Tessera speaks to:
/// SQLite (`Statement::Bind`) and PostgreSQL (`PostgresParam`). The tuning log and the tracker's
/// stores build their parameters as these, so that a query is written once for either.
#ifndef TESSERA_COMMON_SQL_VALUE_H_
#define TESSERA_COMMON_SQL_VALUE_H_

#include <cstdint>
#include <string>
#include <utility>

namespace tessera {

/// Text, an integer, a real, bytes (BLOB or BYTEA) or NULL.
struct SqlValue {
  /// What the value holds.
  enum Kind { kNull, kInt, kReal, kText, kBytes };
  /// Text.
  SqlValue(std::string text) : kind(kText), text(std::move(text)) {}  // NOLINT: implicit
  /// Text.
  SqlValue(const char* text) : kind(kText), text(text) {}  // NOLINT
  /// An integer.
  SqlValue(int64_t number) : kind(kInt), integer(number) {}  // NOLINT
  /// An integer.
  SqlValue(int number) : kind(kInt), integer(number) {}  // NOLINT
  /// A real.
  SqlValue(double number) : kind(kReal), real(number) {}  // NOLINT
  /// Bytes (a BLOB or BYTEA column).
  static SqlValue Bytes(std::string bytes) {
    SqlValue value(std::move(bytes));
    value.kind = kBytes;
    return value;
  }
  /// NULL.
  static SqlValue Null() {
    SqlValue value(int64_t{0});
    value.kind = kNull;
    return value;
  }

  Kind kind;            ///< which of the fields below holds the value
  int64_t integer = 0;  ///< kInt
  double real = 0;      ///< kReal
  std::string text;     ///< text, or the bytes of kBytes
};

}  // namespace tessera

#endif  // TESSERA_COMMON_SQL_VALUE_H_
