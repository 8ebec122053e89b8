/// \file
/// The fleet's one fair-share order, shared by the session queue and the tuning-job queue:
/// higher priority first; among equal priority, the user served least recently; then arrival.
#ifndef TESSERA_TRACKER_FAIR_SHARE_H_
#define TESSERA_TRACKER_FAIR_SHARE_H_

#include <cstdint>

namespace tessera {
namespace tracker {

/// Where a waiting claim (a session request, a job's next batch) stands.
struct FairShareRank {
  int priority = 0;          ///< higher first
  uint64_t user_served = 0;  ///< when its user was last served (0: never); lower first
  uint64_t seq = 0;          ///< arrival order; lower first
};

/// True when `a` is served before `b`.
inline bool ServedBefore(const FairShareRank& a, const FairShareRank& b) {
  if (a.priority != b.priority) return a.priority > b.priority;
  if (a.user_served != b.user_served) return a.user_served < b.user_served;
  return a.seq < b.seq;
}

}  // namespace tracker
}  // namespace tessera

#endif  // TESSERA_TRACKER_FAIR_SHARE_H_
