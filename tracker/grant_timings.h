/// \file
/// `GrantTimings`: the tracker's own time to grant over its most recent grants, per path (a
/// release that hands its server to a queued request, a request that finds a server free), as
/// `FleetStatus.grant_latency` reports it. Timed inside the tracker, so a client's figure minus
/// these is the network, the client and their scheduling.
#ifndef TESSERA_TRACKER_GRANT_TIMINGS_H_
#define TESSERA_TRACKER_GRANT_TIMINGS_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "proto/tracker.pb.h"

namespace tessera {
namespace tracker {

/// What made the tracker grant.
enum class GrantPath {
  kHandoff,  ///< a release freed a server that a queued request was waiting for
  kFree,     ///< a request found a server free when it arrived
};

/// Thread-safe windows of the last `window` grants per path.
class GrantTimings {
 public:
  /// Empty windows of `window` grants each.
  explicit GrantTimings(size_t window = 4096) : window_(window) {}

  /// Adds one grant of `path`: milliseconds from the start of the handler of the RPC that
  /// caused it until its reply was handed to gRPC (`decided_ms`) and until gRPC reported the
  /// reply sent (`sent_ms`).
  void Add(GrantPath path, double decided_ms, double sent_ms);

  /// Appends one `GrantLatency` per path that granted so far.
  void AppendTo(v1::FleetStatus* status) const;

 private:
  struct Window {
    std::vector<double> decided, sent;
    size_t next = 0;  ///< the slot the next grant overwrites once the window is full
  };

  const size_t window_;
  mutable std::mutex mu_;
  std::map<GrantPath, Window> windows_;
};

}  // namespace tracker
}  // namespace tessera

#endif  // TESSERA_TRACKER_GRANT_TIMINGS_H_
