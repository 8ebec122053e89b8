/// \file
/// Who may use the tracker: with a shared token, whoever presents it (gRPC metadata or HTTP
/// header `x-tessera-token`); without one, loopback peers only. One check for every RPC service
/// and the dashboard, so they cannot drift apart.
#ifndef TESSERA_TRACKER_ACCESS_H_
#define TESSERA_TRACKER_ACCESS_H_

#include <grpcpp/grpcpp.h>

#include <string>

namespace tessera {
namespace tracker {

/// The metadata key (gRPC) and header name (HTTP) that carries the token.
constexpr const char* kTokenHeader = "x-tessera-token";

/// True when a gRPC peer string ("ipv4:127.0.0.1:5000", "ipv6:[::1]:5000", "unix:...") is on
/// this machine; a tracker without a token serves only such peers.
bool IsLoopbackPeer(const std::string& peer);

/// Why a caller is refused.
enum class Refusal {
  kNone,          ///< allowed
  kNotLoopback,   ///< no token configured and the peer is not on this machine
  kMissingToken,  ///< a token is configured and the caller sent none
  kWrongToken,    ///< a token is configured and the caller sent another
};

/// The verdict for a caller that is (or not) `loopback` and presented `presented` (null: none),
/// on a tracker whose token is `token` (empty: loopback only).
Refusal CheckAccess(const std::string& token, bool loopback, const std::string* presented);

/// The message a refused caller gets; `peer` names it.
std::string RefusalMessage(Refusal refusal, const std::string& peer);

/// `CheckAccess` for a gRPC call: OK, PERMISSION_DENIED (not loopback) or UNAUTHENTICATED.
grpc::Status AuthorizeRpc(grpc::ServerContext* context, const std::string& token);

}  // namespace tracker
}  // namespace tessera

#endif  // TESSERA_TRACKER_ACCESS_H_
