/// \file
/// The fleet's clocks. Leases, session limits and queue deadlines run on the steady clock, so
/// that a wall-clock jump (NTP, a manual `date`) neither expires nor extends them; the wall clock
/// is read only for grants' expiry, which the tracker writes and device servers on other
/// machines check.
#ifndef TESSERA_COMMON_CLOCK_H_
#define TESSERA_COMMON_CLOCK_H_

#include <cstdint>
#include <memory>

namespace tessera {

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

}  // namespace tessera

#endif  // TESSERA_COMMON_CLOCK_H_
