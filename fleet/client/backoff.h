/// \file
/// The one rule for waiting between attempts in the fleet (a tracker call retried, a server
/// registering or attaching again): exponential, doubling from a first wait up to a cap, back to
/// the first after a success.
#ifndef TESSERA_FLEET_CLIENT_BACKOFF_H_
#define TESSERA_FLEET_CLIENT_BACKOFF_H_

#include <algorithm>
#include <cstdint>

namespace tessera {
namespace fleet {

/// Waits between attempts: `first_ms`, then twice the last, at most `max_ms`.
class Backoff {
 public:
  /// A backoff starting at `first_ms` (at least 1) and capped at `max_ms` (at least `first_ms`).
  Backoff(int64_t first_ms, int64_t max_ms)
      : first_ms_(std::max<int64_t>(1, first_ms)),
        max_ms_(std::max(max_ms, first_ms_)),
        next_ms_(first_ms_) {}

  /// The wait before the next attempt, in milliseconds; the one after is twice as long (capped).
  int64_t Next() {
    const int64_t wait = next_ms_;
    next_ms_ = std::min(next_ms_ * 2, max_ms_);
    return wait;
  }

  /// After a success: the next wait is the first one again.
  void Reset() { next_ms_ = first_ms_; }

 private:
  int64_t first_ms_;
  int64_t max_ms_;
  int64_t next_ms_;
};

}  // namespace fleet
}  // namespace tessera

#endif  // TESSERA_FLEET_CLIENT_BACKOFF_H_
