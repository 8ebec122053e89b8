#include "fleet/client/channel.h"

#include "common/file.h"

namespace tessera {
namespace fleet {

namespace {

// Array chunks are megabytes: large HTTP/2 frames and write buffers cut per-frame overhead.
constexpr int kMaxFrameBytes = (16 << 20) - 1;
constexpr int kWriteBufferBytes = 8 << 20;

}  // namespace

void ApplyBulkTransferArguments(grpc::ChannelArguments* args) {
  args->SetInt(GRPC_ARG_HTTP2_MAX_FRAME_SIZE, kMaxFrameBytes);
  args->SetInt(GRPC_ARG_HTTP2_WRITE_BUFFER_SIZE, kWriteBufferBytes);
}

void ApplyFleetServerArguments(grpc::ServerBuilder* builder) {
  builder->SetMaxReceiveMessageSize(kMaxMessageBytes);
  builder->SetMaxSendMessageSize(kMaxMessageBytes);
  builder->AddChannelArgument(GRPC_ARG_HTTP2_MAX_FRAME_SIZE, kMaxFrameBytes);
  builder->AddChannelArgument(GRPC_ARG_HTTP2_WRITE_BUFFER_SIZE, kWriteBufferBytes);
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
    grpc::SslCredentialsOptions tls;
    tls.pem_root_certs = ReadFile(tls_ca_file, "--tls-ca");
    credentials = grpc::SslCredentials(tls);
  }
  return grpc::CreateCustomChannel(address, credentials, args);
}

}  // namespace fleet
}  // namespace tessera
