/// \file
/// Retrying a tracker call through transient failures (the tracker restarting, a connection
/// reset): every client of the tracker retries the same way.
#ifndef TESSERA_FLEET_CLIENT_RETRY_H_
#define TESSERA_FLEET_CLIENT_RETRY_H_

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <functional>
#include <string>

namespace tessera {
namespace fleet {

/// Runs `call` until it succeeds, fails with anything but UNAVAILABLE, or `window_ms` has passed
/// (backing off from 50 ms to 1 s); throws the `FleetError` of its last status, naming `where`
/// ("tracker HOST:PORT (Status)").
void CallWithRetry(const std::string& where, int64_t window_ms,
                   const std::function<grpc::Status()>& call);

/// Sets the token metadata (when `token` is not empty) and a deadline `timeout_ms` from now.
void PrepareTrackerCall(grpc::ClientContext* context, const std::string& token, int64_t timeout_ms);

/// Milliseconds on the steady clock: retry windows and deadlines ignore wall-clock jumps.
int64_t SteadyMillis();

}  // namespace fleet
}  // namespace tessera

#endif  // TESSERA_FLEET_CLIENT_RETRY_H_
