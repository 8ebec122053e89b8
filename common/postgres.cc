#include "common/postgres.h"

#include <postgresql/libpq-fe.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "common/error.h"

namespace tessera {
namespace {

std::string Trimmed(const char* message) {
  std::string text = message ? message : "";
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  // libpq's messages run over lines ("…failed: …\n\tIs the server running…"): one line here.
  std::string line;
  for (char c : text) {
    if (c == '\n' || c == '\t') c = ' ';
    if (c == ' ' && !line.empty() && line.back() == ' ') continue;
    line += c;
  }
  return line;
}

// Our queries use `?` like SQLite's; PostgreSQL numbers its parameters. No query of ours has a
// `?` inside a string literal, but one there is left alone.
std::string NumberedPlaceholders(const std::string& sql) {
  std::string out;
  int next = 1;
  bool quoted = false;
  for (char c : sql) {
    if (c == '\'') quoted = !quoted;
    if (c == '?' && !quoted) {
      out += "$" + std::to_string(next++);
    } else {
      out += c;
    }
  }
  return out;
}

void IgnoreNotice(void*, const char*) {}

}  // namespace

bool IsPostgresUri(const std::string& location) {
  return location.rfind("postgresql://", 0) == 0 || location.rfind("postgres://", 0) == 0;
}

PostgresParam::PostgresParam(int64_t number) : value(std::to_string(number)) {}

PostgresParam::PostgresParam(double number) {
  if (std::isnan(number)) {
    value = "NaN";
  } else if (std::isinf(number)) {
    value = number > 0 ? "Infinity" : "-Infinity";
  } else {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.17g", number);
    value = buf;
  }
}

PostgresParam::PostgresParam(const SqlValue& v) {
  switch (v.kind) {
    case SqlValue::kInt:
      *this = PostgresParam(v.integer);
      return;
    case SqlValue::kReal:
      *this = PostgresParam(v.real);
      return;
    case SqlValue::kText:
      value = v.text;
      return;
    case SqlValue::kBytes:
      *this = Bytes(v.text);
      return;
    case SqlValue::kNull:
      return;  // value stays nullopt
  }
}

PostgresParam PostgresParam::Bytes(std::string bytes) {
  PostgresParam p(std::move(bytes));
  p.binary = true;
  return p;
}

PostgresParam PostgresParam::Null() {
  PostgresParam p("");
  p.value.reset();
  return p;
}

PostgresRows::PostgresRows(pg_result* result) : result_(result) {}
PostgresRows::PostgresRows(PostgresRows&& other) noexcept : result_(other.result_) {
  other.result_ = nullptr;
}
PostgresRows::~PostgresRows() { PQclear(result_); }

int PostgresRows::size() const { return PQntuples(result_); }

int64_t PostgresRows::affected() const {
  const char* n = PQcmdTuples(result_);
  return n && *n ? std::strtoll(n, nullptr, 10) : 0;
}

std::string PostgresRows::Text(int row, int column) const {
  return std::string(PQgetvalue(result_, row, column),
                     static_cast<size_t>(PQgetlength(result_, row, column)));
}

std::string PostgresRows::Bytes(int row, int column) const {
  size_t length = 0;
  unsigned char* bytes = PQunescapeBytea(
      reinterpret_cast<const unsigned char*>(PQgetvalue(result_, row, column)), &length);
  if (!bytes) throw InternalError("cannot decode a BYTEA column (out of memory)");
  std::string out(reinterpret_cast<const char*>(bytes), length);
  PQfreemem(bytes);
  return out;
}

int64_t PostgresRows::Int(int row, int column) const {
  return std::strtoll(PQgetvalue(result_, row, column), nullptr, 10);
}

double PostgresRows::Real(int row, int column) const {
  // strtod reads PostgreSQL's "NaN", "Infinity" and "-Infinity" as well as numbers.
  return std::strtod(PQgetvalue(result_, row, column), nullptr);
}

bool PostgresRows::IsNull(int row, int column) const {
  return PQgetisnull(result_, row, column) != 0;
}

PostgresConnection::PostgresConnection(const std::string& uri, PostgresErrorHandler on_error)
    : uri_(uri), on_error_(std::move(on_error)) {
  char* parse_error = nullptr;
  PQconninfoOption* options = PQconninfoParse(uri.c_str(), &parse_error);
  if (!options) {
    PostgresFailure failure{uri, "reading the location", Trimmed(parse_error), "", true};
    PQfreemem(parse_error);
    Throw(failure);
  }
  bool has_password = false;
  for (PQconninfoOption* o = options; o->keyword; ++o) {
    if (std::string(o->keyword) == "password" && o->val && *o->val) has_password = true;
  }
  PQconninfoFree(options);
  if (has_password) {
    // The URI shows up in process lists, shell histories and our logs; the password must not.
    Throw({"postgresql://…", "reading the location",
           "the location holds a password; give it in PGPASSWORD or a pgpass file "
           "(PGPASSFILE, default ~/.pgpass) instead",
           "", true});
  }
  conn_ = PQconnectdb(uri.c_str());
  if (!conn_ || PQstatus(conn_) != CONNECTION_OK) {
    PostgresFailure failure{uri, "connecting",
                            conn_ ? Trimmed(PQerrorMessage(conn_)) : "out of memory", "", true};
    PQfinish(conn_);
    conn_ = nullptr;
    Throw(failure);
  }
  PQsetNoticeProcessor(conn_, IgnoreNotice, nullptr);
}

PostgresConnection::~PostgresConnection() { PQfinish(conn_); }

void PostgresConnection::Fail(const std::string& what, pg_result* result) const {
  PostgresFailure failure{uri_, what, Trimmed(PQerrorMessage(conn_)), "", false};
  if (result) {
    const char* state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
    if (state) failure.sqlstate = state;
    const char* primary = PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY);
    if (primary) failure.detail = primary;
    PQclear(result);
  }
  // An error the server did not send (no SQLSTATE) is the connection's: libpq may still call it
  // open, so the next call connects again rather than fail the same way.
  if (failure.sqlstate.empty()) broken_ = true;
  if (PQstatus(conn_) == CONNECTION_BAD) {
    failure.detail += " (the connection to the server is lost)";
  }
  Throw(failure);
}

void PostgresConnection::Throw(const PostgresFailure& failure) const {
  on_error_(failure);
  throw InternalError("the PostgreSQL error handler of '" + failure.location + "' returned");
}

void PostgresConnection::Reconnect() {
  if (PQstatus(conn_) == CONNECTION_OK && !broken_) return;
  broken_ = false;
  // The server restarted or the network dropped since the last call: that call failed and said
  // so; this one starts over on a new session (whose prepared statements are gone).
  PQreset(conn_);
  prepared_.clear();
  if (PQstatus(conn_) != CONNECTION_OK) Fail("reconnecting", nullptr);
}

void PostgresConnection::Exec(const std::string& sql) {
  Reconnect();
  pg_result* result = PQexec(conn_, sql.c_str());
  const ExecStatusType status = PQresultStatus(result);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    Fail("running '" + sql.substr(0, 40) + "...'", result);
  }
  PQclear(result);
}

PostgresRows PostgresConnection::Query(const std::string& sql,
                                       const std::vector<PostgresParam>& params) {
  Reconnect();
  std::vector<const char*> values;
  std::vector<int> lengths;
  std::vector<int> formats;
  for (const PostgresParam& p : params) {
    values.push_back(p.value ? p.value->data() : nullptr);
    lengths.push_back(p.value ? static_cast<int>(p.value->size()) : 0);
    formats.push_back(p.binary ? 1 : 0);
  }
  auto statement = prepared_.find(sql);
  if (statement == prepared_.end()) {
    const std::string name = "tessera_" + std::to_string(prepared_.size() + 1);
    pg_result* prepared = PQprepare(conn_, name.c_str(), NumberedPlaceholders(sql).c_str(),
                                    static_cast<int>(params.size()), nullptr);
    if (PQresultStatus(prepared) != PGRES_COMMAND_OK) {
      Fail("preparing '" + sql.substr(0, 40) + "...'", prepared);
    }
    PQclear(prepared);
    statement = prepared_.emplace(sql, name).first;
  }
  pg_result* result =
      PQexecPrepared(conn_, statement->second.c_str(), static_cast<int>(params.size()),
                     values.data(), lengths.data(), formats.data(), /*resultFormat=*/0);
  const ExecStatusType status = PQresultStatus(result);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    Fail("running '" + sql.substr(0, 40) + "...'", result);
  }
  return PostgresRows(result);
}

PostgresTransaction::PostgresTransaction(PostgresConnection& connection,
                                         std::optional<int64_t> lock_key)
    : connection_(connection) {
  connection_.Exec("BEGIN");
  if (lock_key) connection_.Query("SELECT pg_advisory_xact_lock(?)", {*lock_key});
}

PostgresTransaction::~PostgresTransaction() {
  if (committed_) return;
  try {
    connection_.Exec("ROLLBACK");
  } catch (...) {  // NOLINT: the error that unwinds is the one to report
  }
}

void PostgresTransaction::Commit() {
  connection_.Exec("COMMIT");
  committed_ = true;
}

}  // namespace tessera
