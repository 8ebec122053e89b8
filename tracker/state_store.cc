#include "tracker/state_store.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "proto/grant.h"

namespace tessera {
namespace tracker {
namespace {

// A prepared statement that finalises itself; errors name the database file.
class Statement {
 public:
  Statement(sqlite3* db, const std::string& path, const char* sql) : db_(db), path_(path) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) Fail("prepare");
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement& Bind(int i, const std::string& v) {
    sqlite3_bind_blob(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& Bind(int i, int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  bool Step() {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) Fail("step");
    return false;
  }
  std::string Text(int i) {
    const void* data = sqlite3_column_blob(stmt_, i);
    int size = sqlite3_column_bytes(stmt_, i);
    return data ? std::string(static_cast<const char*>(data), size) : std::string();
  }
  int64_t Int(int i) { return sqlite3_column_int64(stmt_, i); }

 private:
  [[noreturn]] void Fail(const char* what) {
    throw std::runtime_error("tracker state '" + path_ + "': " + what +
                             " failed: " + sqlite3_errmsg(db_));
  }
  sqlite3* db_;
  std::string path_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace

StateStore::StateStore(const std::string& dir) : path_(dir + "/tracker.db") {
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    throw fleet::ConfigError("--state '" + dir +
                             "': cannot create directory: " + std::strerror(errno));
  }
  if (sqlite3_open(path_.c_str(), &db_) != SQLITE_OK) {
    std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw fleet::ConfigError("--state '" + dir + "': cannot open " + path_ + ": " + why);
  }
  sqlite3_busy_timeout(db_, 2000);
  try {
    Exec("PRAGMA journal_mode=WAL");
    Exec("PRAGMA synchronous=NORMAL");
    Exec(
        "CREATE TABLE IF NOT EXISTS servers (server_id TEXT PRIMARY KEY, key TEXT NOT NULL, "
        "address TEXT NOT NULL, info BLOB NOT NULL)");
    Exec(
        "CREATE TABLE IF NOT EXISTS requests (request_id TEXT PRIMARY KEY, key TEXT NOT NULL, "
        "user TEXT NOT NULL, priority INTEGER NOT NULL, seq INTEGER NOT NULL, "
        "deadline_ms INTEGER NOT NULL, session_limit_ms INTEGER NOT NULL)");
  } catch (const std::runtime_error& e) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw fleet::ConfigError(std::string("--state '") + dir + "': " + e.what());
  }
}

StateStore::~StateStore() { sqlite3_close(db_); }

void StateStore::Exec(const std::string& sql) {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    std::string why = error ? error : "unknown error";
    sqlite3_free(error);
    throw std::runtime_error("tracker state '" + path_ + "': " + why + " in: " + sql);
  }
}

void StateStore::Load(FleetState* state) {
  Statement servers(db_, path_, "SELECT server_id, key, address, info FROM servers");
  while (servers.Step()) {
    ServerEntry server;
    server.server_id = servers.Text(0);
    server.key = servers.Text(1);
    server.address = servers.Text(2);
    server.info.ParseFromString(servers.Text(3));
    state->RestoreServer(server);
  }
  Statement requests(db_, path_,
                     "SELECT request_id, key, user, priority, seq, deadline_ms, session_limit_ms "
                     "FROM requests");
  while (requests.Step()) {
    PendingRequest request;
    request.request_id = requests.Text(0);
    request.key = requests.Text(1);
    request.user = requests.Text(2);
    request.priority = static_cast<int>(requests.Int(3));
    request.seq = static_cast<uint64_t>(requests.Int(4));
    request.deadline_ms = requests.Int(5);
    request.session_limit_ms = requests.Int(6);
    request.attached = false;
    state->Enqueue(request);
  }
}

void StateStore::SaveServer(const ServerEntry& server) {
  Statement(db_, path_, "INSERT OR REPLACE INTO servers VALUES (?, ?, ?, ?)")
      .Bind(1, server.server_id)
      .Bind(2, server.key)
      .Bind(3, server.address)
      .Bind(4, server.info.SerializeAsString())
      .Step();
  // A server that came back under a new id on the same address replaces its old row.
  Statement(db_, path_, "DELETE FROM servers WHERE address = ? AND server_id != ?")
      .Bind(1, server.address)
      .Bind(2, server.server_id)
      .Step();
}

void StateStore::SaveRequest(const PendingRequest& request) {
  Statement(db_, path_, "INSERT OR REPLACE INTO requests VALUES (?, ?, ?, ?, ?, ?, ?)")
      .Bind(1, request.request_id)
      .Bind(2, request.key)
      .Bind(3, request.user)
      .Bind(4, static_cast<int64_t>(request.priority))
      .Bind(5, static_cast<int64_t>(request.seq))
      .Bind(6, request.deadline_ms)
      .Bind(7, request.session_limit_ms)
      .Step();
}

void StateStore::DeleteRequest(const std::string& request_id) {
  Statement(db_, path_, "DELETE FROM requests WHERE request_id = ?").Bind(1, request_id).Step();
}

}  // namespace tracker
}  // namespace tessera
