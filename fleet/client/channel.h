/// \file
/// gRPC channels of the fleet: short reconnect backoff, large messages, HTTP/2 settings for bulk
/// array transfers (both the client and the device server apply them), optional TLS.
#ifndef TESSERA_FLEET_CLIENT_CHANNEL_H_
#define TESSERA_FLEET_CLIENT_CHANNEL_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

namespace tessera {
namespace fleet {

/// A channel to `address` with short reconnect backoff and large message limits; TLS when
/// `tls_ca_file` names a PEM root certificate (throws `ConfigError` when it cannot be read).
std::shared_ptr<grpc::Channel> MakeChannel(const std::string& address,
                                           const std::string& tls_ca_file = "");

/// Sets the HTTP/2 arguments that make bulk array transfers fast (both ends use them).
void ApplyBulkTransferArguments(grpc::ChannelArguments* args);

/// The server end of the fleet's channel settings: message limits and the bulk-transfer HTTP/2
/// arguments.
void ApplyFleetServerArguments(grpc::ServerBuilder* builder);

/// Largest gRPC message the fleet sends or accepts (array chunks are smaller).
constexpr int kMaxMessageBytes = 64 << 20;

}  // namespace fleet
}  // namespace tessera

#endif  // TESSERA_FLEET_CLIENT_CHANNEL_H_
