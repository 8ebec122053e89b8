// How failed calls on a device session become fleet errors: only what the session's code
// caused is kCallFailed; whatever the transport did is a lost device.
#include "fleet/client/fleet_error.h"

#include <gtest/gtest.h>

namespace tessera {
namespace fleet {
namespace {

FleetError SessionFailure(const grpc::Status& status) {
  try {
    ThrowSessionStatus(status, "server 127.0.0.1:5000 (Call)");
  } catch (const FleetError& e) {
    return e;
  }
  return FleetError(FleetErrorCode::kInternal, "nothing thrown");
}

TEST(FleetErrorTest, TransportFailuresOfASessionAreLostDevices) {
  for (const grpc::Status& status :
       {grpc::Status(grpc::StatusCode::UNAVAILABLE, "Connection reset by peer"),
        grpc::Status(grpc::StatusCode::UNKNOWN, "Stream removed"),
        grpc::Status(grpc::StatusCode::INTERNAL, "Received RST_STREAM with error code 2"),
        grpc::Status(grpc::StatusCode::CANCELLED, "Cancelled"),
        grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "Deadline Exceeded")}) {
    FleetError e = SessionFailure(status);
    EXPECT_EQ(e.code(), FleetErrorCode::kDeviceLost) << status.error_message();
    EXPECT_EQ(
        std::string(e.what()),
        "device lost: server 127.0.0.1:5000 (Call) failed in transport: " + status.error_message());
  }
}

TEST(FleetErrorTest, OnlyAKernelFaultIsAFailedCall) {
  FleetError kernel = SessionFailure(grpc::Status(
      grpc::StatusCode::UNKNOWN, "call of 'f' failed: it returned -1", kKernelFaultDetails));
  EXPECT_EQ(kernel.code(), FleetErrorCode::kCallFailed);
  EXPECT_EQ(std::string(kernel.what()),
            "server 127.0.0.1:5000 (Call): call of 'f' failed: it returned -1");
  // The server's own answers keep their kinds.
  EXPECT_EQ(
      SessionFailure(grpc::Status(grpc::StatusCode::PERMISSION_DENIED, "grant refused")).code(),
      FleetErrorCode::kPermissionDenied);
  EXPECT_EQ(
      SessionFailure(grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "no session")).code(),
      FleetErrorCode::kSessionEnded);
}

}  // namespace
}  // namespace fleet
}  // namespace tessera
