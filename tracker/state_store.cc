#include "tracker/state_store.h"

#include "common/error.h"
#include "common/file.h"
#include "common/sqlite.h"

namespace tessera {
namespace tracker {
namespace {

// Every failure of the state database is the user's to fix (a corrupt file, a full disk).
void ThrowStateError(const std::string& dir, const SqliteFailure& failure) {
  if (failure.opening) {
    throw ConfigError("--state '" + dir + "': cannot open " + failure.path + ": " + failure.detail);
  }
  throw ConfigError("tracker state '" + failure.path + "': " + failure.what + ": " +
                    failure.detail);
}

}  // namespace

StateStore::StateStore(const std::string& dir) {
  MakeDirectories(dir, "--state");
  db_ = std::make_unique<Database>(
      dir + "/tracker.db", /*create=*/true,
      [dir](const SqliteFailure& failure) { ThrowStateError(dir, failure); },
      /*busy_timeout_ms=*/2000);
  db_->Exec("PRAGMA journal_mode=WAL");
  db_->Exec("PRAGMA synchronous=NORMAL");
  db_->Exec(
      "CREATE TABLE IF NOT EXISTS servers (server_id TEXT PRIMARY KEY, key TEXT NOT NULL, "
      "address TEXT NOT NULL, info BLOB NOT NULL)");
  db_->Exec(
      "CREATE TABLE IF NOT EXISTS requests (request_id TEXT PRIMARY KEY, key TEXT NOT NULL, "
      "user TEXT NOT NULL, priority INTEGER NOT NULL, seq INTEGER NOT NULL, "
      "deadline_ms INTEGER NOT NULL, session_limit_ms INTEGER NOT NULL)");
}

StateStore::~StateStore() = default;

void StateStore::Load(FleetState* state) {
  Statement servers(*db_, "SELECT server_id, key, address, info FROM servers");
  while (servers.Step()) {
    ServerEntry server;
    server.server_id = servers.Text(0);
    server.key = servers.Text(1);
    server.address = servers.Text(2);
    server.info.ParseFromString(servers.Text(3));
    state->RestoreServer(server);
  }
  Statement requests(*db_,
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
  Statement(*db_, "INSERT OR REPLACE INTO servers VALUES (?, ?, ?, ?)")
      .BindBlob(1, server.server_id)
      .BindBlob(2, server.key)
      .BindBlob(3, server.address)
      .BindBlob(4, server.info.SerializeAsString())
      .Step();
  // A server that came back under a new id on the same address replaces its old row.
  Statement(*db_, "DELETE FROM servers WHERE address = ? AND server_id != ?")
      .BindBlob(1, server.address)
      .BindBlob(2, server.server_id)
      .Step();
}

void StateStore::SaveRequest(const PendingRequest& request) {
  Statement(*db_, "INSERT OR REPLACE INTO requests VALUES (?, ?, ?, ?, ?, ?, ?)")
      .BindBlob(1, request.request_id)
      .BindBlob(2, request.key)
      .BindBlob(3, request.user)
      .Bind(4, static_cast<int64_t>(request.priority))
      .Bind(5, static_cast<int64_t>(request.seq))
      .Bind(6, request.deadline_ms)
      .Bind(7, request.session_limit_ms)
      .Step();
}

void StateStore::DeleteRequest(const std::string& request_id) {
  Statement(*db_, "DELETE FROM requests WHERE request_id = ?").BindBlob(1, request_id).Step();
}

}  // namespace tracker
}  // namespace tessera
