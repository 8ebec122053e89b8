/// \file
/// The tracker's clocks. Leases, session limits and queue deadlines run on the steady clock, so
/// that a wall-clock jump (NTP, a manual `date`) neither expires nor extends them; the wall clock
/// is read only to write grants' expiry, which device servers on other machines check.
#ifndef TESSERA_TRACKER_CLOCK_H_
#define TESSERA_TRACKER_CLOCK_H_

#include <cstdint>
#include <memory>

namespace tessera {
namespace tracker {

/// A source of both times; tests inject their own.
class Clock {
 public:
  virtual ~Clock() = default;
  /// Milliseconds on a clock that never jumps (an arbitrary origin).
  virtual int64_t SteadyMillis() const = 0;
  /// Milliseconds since the Unix epoch.
  virtual int64_t UnixMillis() const = 0;
};

/// The system's steady and wall clocks.
std::shared_ptr<const Clock> SystemClock();

}  // namespace tracker
}  // namespace tessera

#endif  // TESSERA_TRACKER_CLOCK_H_
