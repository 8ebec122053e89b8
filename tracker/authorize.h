/// \file
/// The tracker's one access check, shared by every service it serves (the RPC services and the
/// dashboard): the shared token in the `x-tessera-token` metadata or HTTP header, or, for a
/// tracker without a token, loopback peers only.
#ifndef TESSERA_TRACKER_AUTHORIZE_H_
#define TESSERA_TRACKER_AUTHORIZE_H_

#include <grpcpp/grpcpp.h>

#include <string>

namespace tessera {
namespace tracker {

/// True when a gRPC peer string ("ipv4:127.0.0.1:5000", "ipv6:[::1]:5000", "unix:...") is on
/// this machine; a tracker without a token serves only such peers.
bool IsLoopbackPeer(const std::string& peer);

/// Why a caller is refused.
enum class AccessRefusal {
  kNone,          ///< allowed
  kNotLoopback,   ///< no token configured and the peer is not on this machine
  kMissingToken,  ///< a token is configured and the caller sent none
  kWrongToken,    ///< a token is configured and the caller sent another
};

/// The verdict for a caller that is (or is not) on `loopback` and presented `presented` (null:
/// nothing), on a tracker whose token is `token` (empty: loopback only). Constant-time compare.
AccessRefusal CheckAccess(const std::string& token, bool loopback, const std::string* presented);

/// The message a refused caller gets; `peer` names it.
std::string RefusalMessage(AccessRefusal refusal, const std::string& peer);

/// OK when the call carries `token` (compared in constant time) or, with an empty `token`, comes
/// from a loopback peer; UNAUTHENTICATED or PERMISSION_DENIED with the reason otherwise.
grpc::Status AuthorizeCall(const grpc::ServerContextBase& context, const std::string& token);

}  // namespace tracker
}  // namespace tessera

#endif  // TESSERA_TRACKER_AUTHORIZE_H_
