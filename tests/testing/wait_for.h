/// \file
/// `WaitFor`: the tests' one polling primitive. A test waits for a positive event (a state it
/// can read) with a bound, never for a fixed time; "X did not happen" is asserted only after a
/// later event that proves the system got past the moment X would have happened.
#ifndef TESSERA_TESTS_TESTING_WAIT_FOR_H_
#define TESSERA_TESTS_TESTING_WAIT_FOR_H_

#include <functional>

namespace tessera {
namespace testing {

/// Polls `condition` every 20 ms until it holds (true) or `timeout_ms` passes (false).
bool WaitFor(const std::function<bool()>& condition, int timeout_ms);

}  // namespace testing
}  // namespace tessera

#endif  // TESSERA_TESTS_TESTING_WAIT_FOR_H_
