/// \file
/// The fleet clients' one retry rule for calls to the tracker: a call that fails UNAVAILABLE (the
/// tracker restarting, a connection reset) is tried again with backoff within a window; any other
/// failure, or the window's end, throws the matching `FleetError`.
#ifndef TESSERA_FLEET_CLIENT_RETRY_H_
#define TESSERA_FLEET_CLIENT_RETRY_H_

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <functional>
#include <string>

namespace tessera {
namespace fleet {

/// Runs `call` until it succeeds, fails with anything but a transient error, or `window_ms`
/// passes on the steady clock; throws `FleetError` naming `where` on failure. Transient:
/// UNAVAILABLE and UNKNOWN. The tracker never answers UNKNOWN itself, so an UNKNOWN is gRPC's:
/// a call whose connection failed under it (gRPC 1.51 reports some such failures as UNKNOWN,
/// "Stream removed" or a stale errno text like "No such file or directory", on a channel that may
/// be connected again by the time the caller looks) or a tracker handler that threw. Every call
/// retried here is idempotent (requests carry their id, pushes skip duplicates, releases and
/// reads repeat harmlessly), so trying again is safe, and a failure that persists still
/// surfaces when the window ends.
void CallWithRetry(const std::string& where, int64_t window_ms,
                   const std::function<grpc::Status()>& call);

/// True for a tracker call's failure that `CallWithRetry` tries again (UNAVAILABLE, UNKNOWN).
bool TransientTrackerFailure(const grpc::Status& status);

/// Sets the token metadata (when `token` is not empty) and a deadline `timeout_ms` from now.
void PrepareTrackerCall(grpc::ClientContext* context, const std::string& token, int64_t timeout_ms);

/// Milliseconds on the steady clock: retry windows and deadlines ignore wall-clock jumps.
int64_t SteadyMillis();

}  // namespace fleet
}  // namespace tessera

#endif  // TESSERA_FLEET_CLIENT_RETRY_H_
