/// \file
/// The tracker's one access check, shared by every service it serves: the shared token in the
/// `x-tessera-token` metadata, or, for a tracker without a token, loopback peers only.
#ifndef TESSERA_TRACKER_AUTHORIZE_H_
#define TESSERA_TRACKER_AUTHORIZE_H_

#include <grpcpp/grpcpp.h>

#include <string>

namespace tessera {
namespace tracker {

/// True when a gRPC peer string ("ipv4:127.0.0.1:5000", "ipv6:[::1]:5000", "unix:...") is on
/// this machine; a tracker without a token serves only such peers.
bool IsLoopbackPeer(const std::string& peer);

/// OK when the call carries `token` (compared in constant time) or, with an empty `token`, comes
/// from a loopback peer; UNAUTHENTICATED or PERMISSION_DENIED with the reason otherwise.
grpc::Status AuthorizeCall(const grpc::ServerContextBase& context, const std::string& token);

}  // namespace tracker
}  // namespace tessera

#endif  // TESSERA_TRACKER_AUTHORIZE_H_
