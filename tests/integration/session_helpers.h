/// \file
/// Helpers of the device-session tests (direct and through the relay): session options for a
/// key with a short queue timeout, and the `FleetError` a piece of code throws.
#ifndef TESSERA_TESTS_INTEGRATION_SESSION_HELPERS_H_
#define TESSERA_TESTS_INTEGRATION_SESSION_HELPERS_H_

#include <gtest/gtest.h>

#include <string>

#include "fleet/client/fleet_error.h"
#include "fleet/client/tracker_client.h"

namespace tessera {
namespace testing {

/// Options for a session on `key` that gives up queueing after 5 s.
inline fleet::SessionOptions ForKey(const std::string& key) {
  fleet::SessionOptions options;
  options.key = key;
  options.queue_timeout_ms = 5000;
  return options;
}

/// Runs `body` and returns the `FleetError` it throws (failing the test when it throws none).
template <typename Body>
fleet::FleetError Failure(Body body) {
  try {
    body();
  } catch (const fleet::FleetError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a FleetError";
  return fleet::FleetError(fleet::FleetErrorCode::kInternal, "none");
}

}  // namespace testing
}  // namespace tessera

#endif  // TESSERA_TESTS_INTEGRATION_SESSION_HELPERS_H_
