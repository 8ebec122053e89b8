/// \file
/// `FleetHistory`: the fleet over time for the dashboard's chart: every few seconds, how many
/// servers of each device key are free, busy and dead (the words of `FleetJson`), kept for the
/// last `capacity` samples. Thread-safe.
#ifndef TESSERA_TRACKER_DASHBOARD_FLEET_HISTORY_H_
#define TESSERA_TRACKER_DASHBOARD_FLEET_HISTORY_H_

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>

#include "common/json.h"
#include "proto/tracker.pb.h"

namespace tessera {
namespace tracker {

/// Samples of the fleet, oldest first.
class FleetHistory {
 public:
  /// Keeps at most `capacity` samples (one hour at the dashboard's 5-second default).
  explicit FleetHistory(size_t capacity = 720) : capacity_(capacity) {}

  /// Counts `status`'s servers per key and state at `unix_ms`.
  void Add(int64_t unix_ms, const v1::FleetStatus& status);
  /// `{"keys": {KEY: [[unix_ms, free, busy, dead], ...]}}`; a key absent from a sample (not yet
  /// registered, or forgotten) counts 0 there.
  Json ToJson() const;

 private:
  struct Sample {
    int64_t unix_ms = 0;
    std::map<std::string, std::array<int64_t, 3>> counts;  ///< key → free, busy, dead
  };
  const size_t capacity_;
  mutable std::mutex mu_;
  std::deque<Sample> samples_;
};

}  // namespace tracker
}  // namespace tessera

#endif  // TESSERA_TRACKER_DASHBOARD_FLEET_HISTORY_H_
