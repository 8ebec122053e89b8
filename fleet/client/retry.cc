#include "fleet/client/retry.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "fleet/client/backoff.h"
#include "fleet/client/fleet_error.h"
#include "fleet/secrets.h"

namespace tessera {
namespace fleet {

int64_t SteadyMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

bool TransientTrackerFailure(const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::UNAVAILABLE ||
         status.error_code() == grpc::StatusCode::UNKNOWN;
}

void CallWithRetry(const std::string& where, int64_t window_ms,
                   const std::function<grpc::Status()>& call) {
  const int64_t give_up = SteadyMillis() + window_ms;
  Backoff backoff(/*first_ms=*/50, /*max_ms=*/1000);
  while (true) {
    grpc::Status status = call();
    if (status.ok()) return;
    if (!TransientTrackerFailure(status) || SteadyMillis() >= give_up) {
      ThrowStatus(status, where);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(backoff.Next()));
  }
}

void PrepareTrackerCall(grpc::ClientContext* context, const std::string& token,
                        int64_t timeout_ms) {
  if (!token.empty()) context->AddMetadata(fleet::kTokenHeader, token);
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms));
}

}  // namespace fleet
}  // namespace tessera
