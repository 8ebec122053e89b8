#include "rpc_server/client/fleet_error.h"

#include <fstream>
#include <sstream>

#include "proto/grant.h"

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

void ApplyBulkTransferArguments(grpc::ChannelArguments* args) {
  // Array chunks are megabytes: large HTTP/2 frames and write buffers cut per-frame overhead.
  args->SetInt(GRPC_ARG_HTTP2_MAX_FRAME_SIZE, (16 << 20) - 1);
  args->SetInt(GRPC_ARG_HTTP2_WRITE_BUFFER_SIZE, 8 << 20);
}

std::shared_ptr<grpc::Channel> MakeChannel(const std::string& address,
                                           const std::string& tls_ca_file) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(kMaxMessageBytes);
  args.SetMaxSendMessageSize(kMaxMessageBytes);
  // Devices and trackers come back after restarts; notice that within a second. (Not
  // GRPC_ARG_MIN_RECONNECT_BACKOFF_MS: gRPC also uses it as the connect timeout, and a short one
  // fails handshakes on a loaded machine.)
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  ApplyBulkTransferArguments(&args);
  // Each channel gets its own connection (the bench and tests open many in one process).
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  if (!tls_ca_file.empty()) {
    std::ifstream in(tls_ca_file);
    if (!in) throw ConfigError("--tls-ca '" + tls_ca_file + "': cannot read file");
    std::stringstream pem;
    pem << in.rdbuf();
    grpc::SslCredentialsOptions tls;
    tls.pem_root_certs = pem.str();
    credentials = grpc::SslCredentials(tls);
  }
  return grpc::CreateCustomChannel(address, credentials, args);
}

}  // namespace fleet
}  // namespace tessera
