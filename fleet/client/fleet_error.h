/// \file
/// `FleetError`: what the fleet's client library throws. The code tells a program what to do
/// (retry elsewhere, give up, fix the input); the message says what and where. Channels are in
/// `fleet/client/channel.h`.
#ifndef TESSERA_FLEET_CLIENT_FLEET_ERROR_H_
#define TESSERA_FLEET_CLIENT_FLEET_ERROR_H_

#include <grpcpp/grpcpp.h>

#include <string>

#include "common/error.h"

namespace tessera {
namespace fleet {

/// Kinds of fleet failures.
enum class FleetErrorCode {
  kUnavailable,        ///< tracker or server unreachable after retries
  kDeviceLost,         ///< the session's server died or stopped answering
  kQueueTimeout,       ///< no server was granted before the queue deadline
  kUnauthenticated,    ///< missing or wrong token
  kPermissionDenied,   ///< refused: bad grant, non-loopback peer without a token, unsafe name
  kInvalidArgument,    ///< malformed request (bad shape, dtype, name, argument)
  kResourceExhausted,  ///< over a size limit
  kSessionEnded,       ///< the session is over (released, time limit, tracker ended it)
  kCallFailed,         ///< uploaded code failed, crashed or timed out (the server lives on)
  kNotFound,           ///< unknown module, array, function or session
  kInternal,           ///< a bug in Tessera
};

/// An error from the fleet's client library: the outside world failed (programs exit 1).
class FleetError : public ExternalError {
 public:
  /// Creates an error of kind `code` with a complete message.
  FleetError(FleetErrorCode code, const std::string& msg) : ExternalError(msg), code_(code) {}
  /// The kind of failure.
  FleetErrorCode code() const { return code_; }

 private:
  FleetErrorCode code_;
};

/// Throws the `FleetError` matching a failed gRPC `status` from `where` ("tracker HOST:PORT").
[[noreturn]] void ThrowStatus(const grpc::Status& status, const std::string& where);

/// `error_details` of a status that the code a session runs caused (a device server sets it);
/// transport failures never carry it.
constexpr const char* kKernelFaultDetails = "tessera-kernel-fault";

/// Like `ThrowStatus`, for a call on a device session: kCallFailed only for a status marked
/// `kKernelFaultDetails`; a transport failure (reset, unavailable, cancelled, a stream gRPC gave
/// up on) is kDeviceLost, so that the work moves to another device.
[[noreturn]] void ThrowSessionStatus(const grpc::Status& status, const std::string& where);

}  // namespace fleet
}  // namespace tessera

#endif  // TESSERA_FLEET_CLIENT_FLEET_ERROR_H_
