/// \file
/// `FleetState`: the tracker's bookkeeping without any networking: device servers and their
/// leases, the queue of session requests per key, and open sessions. Every method takes the
/// current time on the steady clock (`common/clock.h`) so that tests drive the clock; grants'
/// expiry, in wall-clock time, is derived with `SetUnixOffset`. The caller serialises access.
#ifndef TESSERA_TRACKER_FLEET_STATE_H_
#define TESSERA_TRACKER_FLEET_STATE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "proto/tracker.pb.h"

namespace tessera {
namespace tracker {

/// Lease and limit settings of a tracker.
struct FleetSettings {
  int64_t heartbeat_ms = 2000;       ///< how often servers and clients are asked to check in
  int64_t lease_timeout_ms = 10000;  ///< a server or client silent this long is gone
  int64_t max_session_ms = 600000;   ///< upper bound on a session's wall-clock limit
};

/// A device server known to the tracker.
struct ServerEntry {
  std::string server_id;
  std::string key;
  std::string address;
  v1::DeviceInfo info;
  bool dead = false;
  std::string session_id;  ///< empty when free
  int64_t last_heartbeat_ms = 0;
  int64_t free_since_ms = 0;  ///< longest-idle servers are granted first
};

/// A queued session request.
struct PendingRequest {
  std::string request_id;
  std::string key;
  std::string user;
  int priority = 0;
  uint64_t seq = 0;  ///< arrival order (kept across tracker restarts)
  int64_t deadline_ms = 0;
  int64_t session_limit_ms = 0;
  bool attached = true;  ///< a client is waiting for it (false for requests restored from disk)
};

/// An open session.
struct SessionEntry {
  std::string session_id;
  std::string key;
  std::string user;
  std::string server_id;
  int64_t granted_ms = 0;
  int64_t expires_ms = 0;
  int64_t last_keepalive_ms = 0;
};

/// How a request ended.
struct RequestOutcome {
  bool granted = false;
  v1::Grant grant;    ///< when granted (unsigned: the service signs it)
  std::string error;  ///< when not granted
};

/// The tracker's state machine.
class FleetState {
 public:
  /// An empty fleet with `settings`.
  explicit FleetState(FleetSettings settings) : settings_(settings) {}

  /// Adds or refreshes a server (a re-registration after a restart of either side). A dead entry
  /// with the same address is replaced. Adopts `active_session_id` when not empty.
  void RegisterServer(const v1::RegisterRequest& request, int64_t now_ms);

  /// Renews a server's lease; false when the server is unknown or already declared dead (it must
  /// register again). Fills `ended_sessions` with sessions the server should close.
  bool Heartbeat(const std::string& server_id, const std::string& active_session_id, int64_t now_ms,
                 std::vector<std::string>* ended_sessions);

  /// Queues `request` (idempotent: a request id already queued is re-attached and keeps its
  /// place). `seq` 0 assigns the next arrival number.
  void Enqueue(PendingRequest request);

  /// Forgets a queued request whose client went away.
  void Cancel(const std::string& request_id);

  /// Grants free servers to the best waiting requests: highest priority first; among equal
  /// priority, the user served least recently; then arrival order. Returns the outcomes.
  std::map<std::string, RequestOutcome> Dispatch(int64_t now_ms);

  /// Applies timeouts: servers silent for the lease timeout die (their sessions are lost),
  /// sessions past their limit or without keepalives end, requests past their deadline expire.
  /// Returns the outcomes of expired requests.
  std::map<std::string, RequestOutcome> Expire(int64_t now_ms);

  /// Renews the client's hold on a session. Returns "" when alive, else why it is over (for a
  /// session whose server died, the text starts with "device lost"). During the first lease
  /// timeout after `SetStartTime` an unknown session counts as alive: after a tracker restart
  /// its server has not re-registered it yet.
  std::string KeepSession(const std::string& session_id, int64_t now_ms);

  /// Ends a session and frees its server; false when it was not open.
  bool ReleaseSession(const std::string& session_id, int64_t now_ms);

  /// A snapshot for `tessera fleet status`.
  v1::FleetStatus Status(int64_t now_ms) const;

  /// Wall-clock time minus steady time, for the expiry that grants carry and servers report.
  void SetUnixOffset(int64_t unix_minus_steady_ms) { unix_offset_ms_ = unix_minus_steady_ms; }
  /// Moves the deadlines of queued requests from wall-clock time (as saved on disk) to steady
  /// time.
  void DeadlinesFromUnix() {
    for (auto& [id, request] : queue_) request.deadline_ms -= unix_offset_ms_;
  }
  /// `request` with its deadline in wall-clock time (as saved on disk).
  PendingRequest WithUnixDeadline(PendingRequest request) const {
    request.deadline_ms += unix_offset_ms_;
    return request;
  }
  /// When this tracker started (see `KeepSession`).
  void SetStartTime(int64_t now_ms) { started_ms_ = now_ms; }
  /// Requests still queued (for persistence).
  const std::map<std::string, PendingRequest>& queue() const { return queue_; }
  /// The server of open session `session_id`, or "" when it is not open.
  std::string ServerOfSession(const std::string& session_id) const {
    auto it = sessions_.find(session_id);
    return it == sessions_.end() ? "" : it->second.server_id;
  }
  /// Known servers, by id.
  const std::map<std::string, ServerEntry>& servers() const { return servers_; }
  /// Adds a server restored from disk: shown as dead until it registers again.
  void RestoreServer(ServerEntry server) {
    server.dead = true;
    server.session_id.clear();
    known_keys_[server.key] = true;
    servers_.emplace(server.server_id, std::move(server));
  }
  /// Keys seen so far (registered now or restored from disk).
  void AddKnownKey(const std::string& key) { known_keys_[key] = true; }
  /// The settings.
  const FleetSettings& settings() const { return settings_; }

 private:
  void EndSession(std::string session_id, const std::string& why, int64_t now_ms);
  const PendingRequest* BestRequestFor(const std::string& key) const;

  FleetSettings settings_;
  std::map<std::string, ServerEntry> servers_;
  std::map<std::string, PendingRequest> queue_;
  std::map<std::string, SessionEntry> sessions_;
  std::map<std::string, std::string> ended_;  ///< session id -> why (remembered for clients)
  std::map<std::string, std::vector<std::string>> to_close_;  ///< server id -> ended sessions
  std::map<std::string, uint64_t> last_served_;               ///< user -> grant number
  std::map<std::string, bool> known_keys_;
  int64_t started_ms_ = 0;
  int64_t unix_offset_ms_ = 0;
  uint64_t next_seq_ = 1;
  uint64_t grants_ = 0;
};

}  // namespace tracker
}  // namespace tessera

#endif  // TESSERA_TRACKER_FLEET_STATE_H_
