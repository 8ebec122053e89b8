#include "tracker/state_store.h"

#include "common/sqlite.h"
#include "tracker/state_db.h"

namespace tessera {
namespace tracker {
StateChange StateChange::SaveServer(const ServerEntry& server) {
  StateChange change;
  change.kind = Kind::kSaveServer;
  change.server = server;
  return change;
}

StateChange StateChange::SaveRequest(const PendingRequest& request) {
  StateChange change;
  change.kind = Kind::kSaveRequest;
  change.request = request;
  return change;
}

StateChange StateChange::DeleteRequest(const std::string& request_id) {
  StateChange change;
  change.kind = Kind::kDeleteRequest;
  change.request.request_id = request_id;
  return change;
}

StateStore::StateStore(const std::string& dir) {
  db_ = OpenStateDatabase(dir, "tracker.db", "tracker state");
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

void StateStore::SaveServer(const ServerEntry& server) { Apply({StateChange::SaveServer(server)}); }

void StateStore::SaveRequest(const PendingRequest& request) {
  Apply({StateChange::SaveRequest(request)});
}

void StateStore::DeleteRequest(const std::string& request_id) {
  Apply({StateChange::DeleteRequest(request_id)});
}

// One transaction and each statement prepared once per batch: the writer saves hundreds of
// changes a second under load.
void StateStore::Apply(const std::vector<StateChange>& changes) {
  Transaction transaction(*db_);
  Statement save_server(*db_, "INSERT OR REPLACE INTO servers VALUES (?, ?, ?, ?)");
  // A server that came back under a new id on the same address replaces its old row.
  Statement drop_twin(*db_, "DELETE FROM servers WHERE address = ? AND server_id != ?");
  Statement save_request(*db_, "INSERT OR REPLACE INTO requests VALUES (?, ?, ?, ?, ?, ?, ?)");
  Statement delete_request(*db_, "DELETE FROM requests WHERE request_id = ?");
  for (const StateChange& change : changes) {
    const PendingRequest& request = change.request;
    switch (change.kind) {
      case StateChange::Kind::kSaveServer:
        save_server.BindBlob(1, change.server.server_id)
            .BindBlob(2, change.server.key)
            .BindBlob(3, change.server.address)
            .BindBlob(4, change.server.info.SerializeAsString())
            .Run();
        drop_twin.BindBlob(1, change.server.address).BindBlob(2, change.server.server_id).Run();
        break;
      case StateChange::Kind::kSaveRequest:
        save_request.BindBlob(1, request.request_id)
            .BindBlob(2, request.key)
            .BindBlob(3, request.user)
            .Bind(4, static_cast<int64_t>(request.priority))
            .Bind(5, static_cast<int64_t>(request.seq))
            .Bind(6, request.deadline_ms)
            .Bind(7, request.session_limit_ms)
            .Run();
        break;
      case StateChange::Kind::kDeleteRequest:
        delete_request.BindBlob(1, request.request_id).Run();
        break;
    }
  }
  transaction.Commit();
}

}  // namespace tracker
}  // namespace tessera
