/// \file
/// Helpers of the device-session tests (direct and through the relay): session options for a
/// key with a short queue timeout, the `FleetError` a piece of code throws, and one array round
/// trip through the test kernels.
#ifndef TESSERA_TESTS_INTEGRATION_SESSION_HELPERS_H_
#define TESSERA_TESTS_INTEGRATION_SESSION_HELPERS_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "fleet/client/fleet_error.h"
#include "fleet/client/remote_session.h"
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

/// The input and output arrays of `ExpectAddOneRoundTrip`.
struct RoundTripArrays {
  int64_t in = 0;   ///< 4×8 uint8 input
  int64_t out = 0;  ///< 4×8 uint8 output
};

/// Copies 32 bytes into a fresh array of `session`, runs `add_one_u8` of `module` (the test
/// kernels' library) into a second one and checks every byte came back one larger.
inline RoundTripArrays ExpectAddOneRoundTrip(fleet::RemoteSession& session, int64_t module) {
  int64_t in = session.AllocArray({4, 8}, "uint8");
  int64_t out = session.AllocArray({4, 8}, "uint8");
  std::vector<uint8_t> data(32);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 7);
  session.CopyIn(in, data.data(), data.size());
  session.Call(module, "add_one_u8", {fleet::RemoteArg::Array(in), fleet::RemoteArg::Array(out)});
  std::vector<uint8_t> result(32);
  session.CopyOut(out, result.data(), result.size());
  for (size_t i = 0; i < data.size(); ++i) EXPECT_EQ(result[i], static_cast<uint8_t>(i * 7 + 1));
  return {in, out};
}

}  // namespace testing
}  // namespace tessera

#endif  // TESSERA_TESTS_INTEGRATION_SESSION_HELPERS_H_
