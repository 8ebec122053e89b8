#include "fleet/client/fleet_error.h"

namespace tessera {
namespace fleet {

void ThrowStatus(const grpc::Status& status, const std::string& where) {
  const std::string msg = where + ": " + status.error_message();
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
      throw FleetError(FleetErrorCode::kUnavailable, msg);
    case grpc::StatusCode::ABORTED:
      throw FleetError(FleetErrorCode::kDeviceLost, msg);
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      throw FleetError(FleetErrorCode::kQueueTimeout, msg);
    case grpc::StatusCode::UNAUTHENTICATED:
      throw FleetError(FleetErrorCode::kUnauthenticated, msg);
    case grpc::StatusCode::PERMISSION_DENIED:
      throw FleetError(FleetErrorCode::kPermissionDenied, msg);
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::OUT_OF_RANGE:
      throw FleetError(FleetErrorCode::kInvalidArgument, msg);
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      throw FleetError(FleetErrorCode::kResourceExhausted, msg);
    case grpc::StatusCode::FAILED_PRECONDITION:
      throw FleetError(FleetErrorCode::kSessionEnded, msg);
    case grpc::StatusCode::UNKNOWN:
      throw FleetError(FleetErrorCode::kCallFailed, msg);
    case grpc::StatusCode::NOT_FOUND:
      throw FleetError(FleetErrorCode::kNotFound, msg);
    default:
      throw FleetError(FleetErrorCode::kInternal, msg);
  }
}

void ThrowSessionStatus(const grpc::Status& status, const std::string& where) {
  switch (status.error_code()) {
    case grpc::StatusCode::UNKNOWN:
      if (status.error_details() == kKernelFaultDetails) ThrowStatus(status, where);
      [[fallthrough]];
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::CANCELLED:
    case grpc::StatusCode::INTERNAL:
    case grpc::StatusCode::DATA_LOSS:
    case grpc::StatusCode::DEADLINE_EXCEEDED:
    case grpc::StatusCode::ABORTED:
      throw FleetError(FleetErrorCode::kDeviceLost,
                       "device lost: " + where + " failed in transport: " + status.error_message());
    default:
      ThrowStatus(status, where);
  }
}

}  // namespace fleet
}  // namespace tessera
