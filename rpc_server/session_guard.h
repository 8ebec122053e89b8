// Private to rpc_server: which grants open a session on this server. A grant must carry the
// tracker's HMAC under the grant key, name this server and its key, be unexpired, and never have
// been used before (the replay set keeps used grants until they expire).
#ifndef TESSERA_RPC_SERVER_SESSION_GUARD_H_
#define TESSERA_RPC_SERVER_SESSION_GUARD_H_

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <map>
#include <string>

#include "proto/tracker.pb.h"

namespace tessera {
namespace fleet {

/// Admits grants for one server; not thread-safe (the service calls it under its lock).
class SessionGuard {
 public:
  /// A guard for the server `server_id` registered under `key`.
  SessionGuard(std::string key, std::string server_id)
      : key_(std::move(key)), server_id_(std::move(server_id)) {}
  /// Sets the key grants are verified with.
  void SetGrantKey(const std::string& grant_key) { grant_key_ = grant_key; }
  /// OK and remembers the grant when it may open a session at `now_ms`; otherwise why not
  /// (UNAVAILABLE before registration, PERMISSION_DENIED "grant refused: ...").
  grpc::Status Admit(const tracker::v1::Grant& grant, int64_t now_ms);
  /// The key grants are verified with (the server proves itself to clients with it).
  const std::string& grant_key() const { return grant_key_; }

 private:
  std::string key_;
  std::string server_id_;
  std::string grant_key_;
  std::map<std::string, int64_t> used_;  ///< session id -> expiry, against replays
};

}  // namespace fleet
}  // namespace tessera

#endif  // TESSERA_RPC_SERVER_SESSION_GUARD_H_
