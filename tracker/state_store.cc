#include "tracker/state_store.h"

#include "common/error.h"
#include "common/postgres.h"
#include "tracker/state_sql.h"

namespace tessera {
namespace tracker {
namespace {

// Trackers creating their tables in one database at once queue on this lock.
constexpr int64_t kStateSchemaLock = 0x7465737365726904;  // "tessera" + 4

constexpr const char* kSqliteSchema =
    "CREATE TABLE IF NOT EXISTS servers (server_id TEXT PRIMARY KEY, key TEXT NOT NULL, "
    "address TEXT NOT NULL, info BLOB NOT NULL);"
    "CREATE TABLE IF NOT EXISTS requests (request_id TEXT PRIMARY KEY, key TEXT NOT NULL, "
    "user TEXT NOT NULL, priority INTEGER NOT NULL, seq INTEGER NOT NULL, "
    "deadline_ms INTEGER NOT NULL, session_limit_ms INTEGER NOT NULL);";

// Every tracker's rows in one pair of tables, apart by its name; `"user"` is reserved there.
constexpr const char* kPostgresSchema =
    "CREATE TABLE IF NOT EXISTS tracker_servers (tracker TEXT NOT NULL, server_id TEXT NOT NULL, "
    "key TEXT NOT NULL, address TEXT NOT NULL, info BYTEA NOT NULL, "
    "PRIMARY KEY (tracker, server_id));"
    "CREATE TABLE IF NOT EXISTS tracker_requests (tracker TEXT NOT NULL, "
    "request_id TEXT NOT NULL, key TEXT NOT NULL, \"user\" TEXT NOT NULL, "
    "priority BIGINT NOT NULL, seq BIGINT NOT NULL, deadline_ms BIGINT NOT NULL, "
    "session_limit_ms BIGINT NOT NULL, PRIMARY KEY (tracker, request_id));";

// The statements of each store: SQLite's files keep their one tracker's rows, without a name.
struct StateSqlText {
  const char* select_servers;
  const char* select_requests;
  const char* save_server;
  const char* drop_twin;
  const char* save_request;
  const char* delete_request;
};

constexpr StateSqlText kSqliteSql = {
    "SELECT server_id, key, address, info FROM servers",
    "SELECT request_id, key, user, priority, seq, deadline_ms, session_limit_ms FROM requests",
    "INSERT OR REPLACE INTO servers VALUES (?, ?, ?, ?)",
    "DELETE FROM servers WHERE address = ? AND server_id != ?",
    "INSERT OR REPLACE INTO requests VALUES (?, ?, ?, ?, ?, ?, ?)",
    "DELETE FROM requests WHERE request_id = ?"};

constexpr StateSqlText kPostgresSql = {
    "SELECT server_id, key, address, info FROM tracker_servers WHERE tracker = ?",
    "SELECT request_id, key, \"user\", priority, seq, deadline_ms, session_limit_ms "
    "FROM tracker_requests WHERE tracker = ?",
    "INSERT INTO tracker_servers (tracker, server_id, key, address, info) VALUES (?, ?, ?, ?, ?) "
    "ON CONFLICT (tracker, server_id) DO UPDATE SET key = EXCLUDED.key, "
    "address = EXCLUDED.address, info = EXCLUDED.info",
    "DELETE FROM tracker_servers WHERE tracker = ? AND address = ? AND server_id != ?",
    "INSERT INTO tracker_requests (tracker, request_id, key, \"user\", priority, seq, "
    "deadline_ms, session_limit_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (tracker, request_id) DO UPDATE SET key = EXCLUDED.key, "
    "\"user\" = EXCLUDED.\"user\", priority = EXCLUDED.priority, seq = EXCLUDED.seq, "
    "deadline_ms = EXCLUDED.deadline_ms, session_limit_ms = EXCLUDED.session_limit_ms",
    "DELETE FROM tracker_requests WHERE tracker = ? AND request_id = ?"};

}  // namespace

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

StateStore::StateStore(const std::string& dir, const std::string& location, const std::string& name)
    : name_(name) {
  if (location.empty()) {
    sql_ = OpenSqliteState(dir, "tracker.db", "tracker state");
    sql_->Exec(kSqliteSchema);
    return;
  }
  if (!IsPostgresUri(location)) {
    throw ConfigError("--state-db '" + location +
                      "': expected postgresql://USER@HOST/DB (without it the state lives in "
                      "--state DIR/tracker.db)");
  }
  if (name.empty()) {
    throw ConfigError(
        "--state-db needs --tracker-name: the name that keeps this tracker's registrations and "
        "queued requests apart from other trackers' in the database");
  }
  sql_ = OpenPostgresState(location, "tracker state");
  SqlTransaction transaction(*sql_, kStateSchemaLock);
  sql_->Exec(kPostgresSchema);
  transaction.Commit();
}

StateStore::~StateStore() = default;

// The named tracker's rows in PostgreSQL; SQLite's ids are stored as BLOBs (files written so
// before must still match).
std::vector<SqlValue> StateStore::Params(std::vector<SqlValue> params, size_t ids) const {
  if (!sql_->postgres()) {
    for (size_t i = 0; i < ids && i < params.size(); ++i) {
      params[i] = SqlValue::Bytes(params[i].text);
    }
    return params;
  }
  params.insert(params.begin(), SqlValue(name_));
  return params;
}

void StateStore::Load(FleetState* state) {
  const StateSqlText& sql = sql_->postgres() ? kPostgresSql : kSqliteSql;
  sql_->Query(sql.select_servers, Params({}, 0), [&](const SqlRow& row) {
    ServerEntry server;
    server.server_id = row.Text(0);
    server.key = row.Text(1);
    server.address = row.Text(2);
    server.info.ParseFromString(row.Bytes(3));
    state->RestoreServer(server);
  });
  sql_->Query(sql.select_requests, Params({}, 0), [&](const SqlRow& row) {
    PendingRequest request;
    request.request_id = row.Text(0);
    request.key = row.Text(1);
    request.user = row.Text(2);
    request.priority = static_cast<int>(row.Int(3));
    request.seq = static_cast<uint64_t>(row.Int(4));
    request.deadline_ms = row.Int(5);
    request.session_limit_ms = row.Int(6);
    request.attached = false;
    state->Enqueue(request);
  });
}

void StateStore::SaveServer(const ServerEntry& server) { Apply({StateChange::SaveServer(server)}); }

void StateStore::SaveRequest(const PendingRequest& request) {
  Apply({StateChange::SaveRequest(request)});
}

void StateStore::DeleteRequest(const std::string& request_id) {
  Apply({StateChange::DeleteRequest(request_id)});
}

// One transaction, each statement prepared once per connection: the writer saves hundreds of
// changes a second under load.
void StateStore::Apply(const std::vector<StateChange>& changes) {
  const StateSqlText& sql = sql_->postgres() ? kPostgresSql : kSqliteSql;
  SqlTransaction transaction(*sql_);
  for (const StateChange& change : changes) {
    const PendingRequest& request = change.request;
    switch (change.kind) {
      case StateChange::Kind::kSaveServer:
        sql_->Query(sql.save_server,
                    Params({change.server.server_id, change.server.key, change.server.address,
                            SqlValue::Bytes(change.server.info.SerializeAsString())},
                           3));
        // A server that came back under a new id on the same address replaces its old row.
        sql_->Query(sql.drop_twin, Params({change.server.address, change.server.server_id}, 2));
        break;
      case StateChange::Kind::kSaveRequest:
        sql_->Query(sql.save_request, Params({request.request_id, request.key, request.user,
                                              request.priority, static_cast<int64_t>(request.seq),
                                              request.deadline_ms, request.session_limit_ms},
                                             3));
        break;
      case StateChange::Kind::kDeleteRequest:
        sql_->Query(sql.delete_request, Params({request.request_id}, 1));
        break;
    }
  }
  transaction.Commit();
}

}  // namespace tracker
}  // namespace tessera
