/// \file
/// `FakeClock`: steady and wall time that a test moves by hand (see common/clock.h), to show that
/// a wall-clock jump neither expires nor extends leases, deadlines and session limits.
#ifndef TESSERA_TESTS_TESTING_FAKE_CLOCK_H_
#define TESSERA_TESTS_TESTING_FAKE_CLOCK_H_

#include <atomic>
#include <cstdint>

#include "common/clock.h"

namespace tessera {
namespace testing {

/// A clock whose two times are set by the test.
class FakeClock final : public Clock {
 public:
  /// The steady time.
  int64_t SteadyMillis() const override { return steady; }
  /// The wall-clock time.
  int64_t UnixMillis() const override { return unix; }
  /// Milliseconds on the steady clock (an arbitrary origin).
  std::atomic<int64_t> steady{5000000};
  /// Milliseconds since the Unix epoch (November 2026).
  std::atomic<int64_t> unix{1790000000000};
};

}  // namespace testing
}  // namespace tessera

#endif  // TESSERA_TESTS_TESTING_FAKE_CLOCK_H_
