// Which fleet failures count against a candidate: only its own code failing or running too long.
#include <gtest/gtest.h>

#include "fleet/client/fleet_error.h"
#include "tuner/measure/rpc_measurer.h"

namespace tessera {
namespace tuner {
namespace {

using fleet::FleetError;
using fleet::FleetErrorCode;

TEST(RpcFailureTest, OnlyTheCandidatesOwnFailuresAreRuntimeErrorsOrTimeouts) {
  EXPECT_EQ(ErrorKindOfFleetFailure(FleetError(
                FleetErrorCode::kCallFailed,
                "server 127.0.0.1:5000 (Time): timing function 'candidate' did not finish within "
                "2500 ms; the worker process was killed")),
            tuning::TIMEOUT);
  EXPECT_EQ(ErrorKindOfFleetFailure(FleetError(
                FleetErrorCode::kCallFailed,
                "server 127.0.0.1:5000 (Call): function 'candidate' crashed the worker process: "
                "signal 11")),
            tuning::RUNTIME_ERROR);
  for (FleetErrorCode device :
       {FleetErrorCode::kDeviceLost, FleetErrorCode::kUnavailable, FleetErrorCode::kSessionEnded,
        FleetErrorCode::kQueueTimeout, FleetErrorCode::kPermissionDenied, FleetErrorCode::kNotFound,
        FleetErrorCode::kInternal}) {
    EXPECT_EQ(ErrorKindOfFleetFailure(FleetError(device, "grant refused: issued for server 'x'")),
              tuning::DEVICE_LOST)
        << static_cast<int>(device);
  }
}

}  // namespace
}  // namespace tuner
}  // namespace tessera
