/// \file
/// `TrackerService`: the gRPC face of the tracker. It wraps a `FleetState` with a lock, signs
/// grants, enforces the shared token (or loopback-only access without one), persists to a
/// `StateStore` through a `StateWriter` (off the lock), and runs the lease clock on a background
/// thread.
#ifndef TESSERA_TRACKER_TRACKER_SERVICE_H_
#define TESSERA_TRACKER_TRACKER_SERVICE_H_

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "proto/tracker.grpc.pb.h"
#include "tracker/authorize.h"
#include "tracker/fleet_state.h"
#include "tracker/grant_timings.h"
#include "tracker/relay_service.h"
#include "tracker/state_store.h"
#include "tracker/state_writer.h"

namespace tessera {
namespace tracker {

/// The tracker's RPC service. Queued `RequestSession` calls hold no server thread while they wait
/// (gRPC's callback API): the grant path finishes the waiting call at once, and a release runs
/// on the thread that read it, handing its server to the next client without a thread switch.
class TrackerService final
    : public v1::Tracker::WithCallbackMethod_RequestSession<
          v1::Tracker::WithCallbackMethod_ReleaseSession<v1::Tracker::Service>> {
 public:
  /// A service with `settings` for callers holding `tokens` (the read-only one may call `Status`
  /// only). An empty fleet token means no authentication but loopback peers only;
  /// `store` may be null (nothing survives a restart). Starts the lease clock, which reads
  /// `clock`.
  TrackerService(FleetSettings settings, AccessTokens tokens, std::unique_ptr<StateStore> store,
                 std::shared_ptr<const Clock> clock = SystemClock());
  /// Stops the lease clock.
  ~TrackerService() override;

  /// Registers or re-registers a device server.
  grpc::Status Register(grpc::ServerContext* context, const v1::RegisterRequest* request,
                        v1::RegisterReply* reply) override;
  /// Renews a server's lease; NOT_FOUND tells the server to register again.
  grpc::Status Heartbeat(grpc::ServerContext* context, const v1::HeartbeatRequest* request,
                         v1::HeartbeatReply* reply) override;
  /// Queues a client until a server is granted, the deadline passes, or the client leaves.
  grpc::ServerUnaryReactor* RequestSession(grpc::CallbackServerContext* context,
                                           const v1::SessionRequest* request,
                                           v1::SessionReply* reply) override;
  /// Renews a client's session; ABORTED "device lost ..." when its server died.
  grpc::Status KeepSession(grpc::ServerContext* context, const v1::SessionRef* request,
                           v1::Empty* reply) override;
  /// Ends a session and frees its server.
  grpc::ServerUnaryReactor* ReleaseSession(grpc::CallbackServerContext* context,
                                           const v1::SessionRef* request,
                                           v1::Empty* reply) override;
  /// True when a live server of `key` is registered with this tracker.
  bool Brokers(const std::string& key);
  /// What the relay for dial-out servers needs: this tracker's access rule and its sessions.
  RelayHooks relay_hooks();

  /// The fleet as `tessera fleet status` shows it.
  grpc::Status Status(grpc::ServerContext* context, const v1::StatusRequest* request,
                      v1::FleetStatus* reply) override;
  /// The fleet now, as `Status` returns it (the dashboard reads it without an RPC).
  v1::FleetStatus Snapshot();
  /// Test hook: wakes the lease clock and returns true once it has run a whole pass that began
  /// after this call (so it read the clock as it is now, expired what that time expires, and
  /// handed the answers to gRPC); false after `timeout_ms` or when the service stops.
  bool AwaitClockPass(int64_t timeout_ms = 10000);

 private:
  class QueuedCall;
  /// The RPC whose handler made grants, and when it started (for `timings_`).
  struct GrantCause {
    GrantPath path;
    std::chrono::steady_clock::time_point start;
  };

  grpc::Status Authorize(const grpc::ServerContextBase& context,
                         Access needs = Access::kWrite) const;
  int64_t Now();
  void DispatchLocked(int64_t now_ms, const GrantCause* cause = nullptr);
  void Record(const std::map<std::string, RequestOutcome>& outcomes,
              const GrantCause* cause = nullptr);
  grpc::Status Answer(RequestOutcome outcome, v1::SessionReply* reply) const;
  void Cancelled(QueuedCall* call);
  void FinishReady();
  void ClockLoop();

  const AccessTokens tokens_;
  const std::shared_ptr<const Clock> clock_source_;
  std::string grant_key_;
  std::unique_ptr<StateWriter> writer_;  ///< null without --state
  std::mutex mu_;
  std::condition_variable changed_;             ///< wakes the lease clock (shutdown, a test)
  std::condition_variable clock_passed_;        ///< notified after each pass of the lease clock
  uint64_t clock_passes_ = 0;                   ///< passes of the lease clock so far
  std::map<std::string, QueuedCall*> waiting_;  ///< request id -> its open call
  /// Calls answered under `mu_`, finished by `FinishReady` once it is released.
  std::vector<std::pair<QueuedCall*, grpc::Status>> ready_;
  FleetState state_;
  std::map<std::string, RequestOutcome> outcomes_;  ///< for requests whose client is away
  std::map<std::string, int64_t> outcome_times_;    ///< when each outcome was recorded
  bool stopping_ = false;
  GrantTimings timings_;  ///< its own lock: calls report when gRPC is done with them
  std::thread clock_;
};

}  // namespace tracker
}  // namespace tessera

#endif  // TESSERA_TRACKER_TRACKER_SERVICE_H_
