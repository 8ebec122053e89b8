/// \file
/// `TrackerClient`: talks to a tessera-tracker for clients (the tuner's RPC runner, the
/// `tessera fleet` command): request, renew and release sessions, read the fleet status.
/// Transient failures (tracker restarting, connection reset) are retried.
#ifndef TESSERA_FLEET_CLIENT_TRACKER_CLIENT_H_
#define TESSERA_FLEET_CLIENT_TRACKER_CLIENT_H_

#include <cstdint>
#include <memory>
#include <string>

#include "fleet/client/fleet_error.h"
#include "proto/tracker.grpc.pb.h"

namespace tessera {
namespace fleet {

/// Where the tracker is and how to reach it.
struct TrackerOptions {
  std::string address;              ///< HOST:PORT
  std::string token;                ///< shared secret; empty for a loopback tracker without one
  std::string tls_ca_file;          ///< PEM root certificate for a TLS tracker; empty for plaintext
  int64_t retry_window_ms = 10000;  ///< how long transient failures are retried
  int64_t rpc_timeout_ms = 10000;   ///< deadline of each short call
};

/// Options for the tracker at `address` as the commands' flags give it: the token read from
/// `token_file` (none when empty; `ReadTokenFile`'s errors), the TLS root certificate
/// `tls_ca_file` (empty: plaintext), the rest at their defaults.
TrackerOptions TrackerOptionsFor(const std::string& address, const std::string& token_file,
                                 const std::string& tls_ca_file);

/// What a client asks for.
struct SessionOptions {
  std::string key;                   ///< device key
  int priority = 0;                  ///< higher first
  std::string user = "anonymous";    ///< fair sharing between users at equal priority
  int64_t queue_timeout_ms = 60000;  ///< give up when not granted by then
  int64_t session_limit_ms = 0;      ///< wall-clock limit (0: the tracker's maximum)
};

/// A client of one tracker; thread-safe.
class TrackerClient {
 public:
  /// A client for `options.address` (no connection is made until the first call).
  explicit TrackerClient(TrackerOptions options);

  /// Queues for a session and returns the signed grant. Throws `FleetError` kQueueTimeout when
  /// the deadline passes, kUnauthenticated / kPermissionDenied when refused.
  tracker::v1::SessionReply RequestSession(const SessionOptions& options);
  /// Renews a session. Throws kDeviceLost when its server died, kSessionEnded when it is over.
  void KeepSession(const std::string& session_id);
  /// Ends a session (no error when it already ended).
  void ReleaseSession(const std::string& session_id);
  /// The fleet's state.
  tracker::v1::FleetStatus Status();
  /// The tracker's address.
  const std::string& address() const { return options_.address; }
  /// The PEM root certificate of a TLS tracker ("" for plaintext).
  const std::string& tls_ca_file() const { return options_.tls_ca_file; }

 private:
  template <typename Call>
  void CallWithRetry(const char* what, int64_t window_ms, Call call);
  void Prepare(grpc::ClientContext* context, int64_t timeout_ms) const;

  TrackerOptions options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<tracker::v1::Tracker::Stub> stub_;
};

}  // namespace fleet
}  // namespace tessera

#endif  // TESSERA_FLEET_CLIENT_TRACKER_CLIENT_H_
