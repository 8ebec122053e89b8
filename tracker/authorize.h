/// \file
/// The tracker's one access check, shared by every service it serves (the RPC services and the
/// dashboard): the shared token in the `x-tessera-token` metadata or HTTP header, or, for a
/// tracker without a token, loopback peers only. A tracker may also have a read-only token
/// (`--read-token-file`), which CI builds and dashboards hold: it reads the shared log and the
/// fleet status, and nothing else.
#ifndef TESSERA_TRACKER_AUTHORIZE_H_
#define TESSERA_TRACKER_AUTHORIZE_H_

#include <grpcpp/grpcpp.h>

#include <string>
#include <utility>

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
  kReadOnly,      ///< the caller sent the read-only token for a call that changes something
};

/// What a call does, for the read-only token.
enum class Access {
  kRead,   ///< reads the shared log or the fleet status
  kWrite,  ///< anything else: registers, leases, pushes, jobs
};

/// The tokens a tracker accepts.
struct AccessTokens {
  /// `full` alone (a tracker without a read-only token), or both.
  AccessTokens(std::string full = "", std::string read_only = "")  // NOLINT(runtime/explicit)
      : full(std::move(full)), read_only(std::move(read_only)) {}
  /// `full` alone.
  AccessTokens(const char* full) : AccessTokens(std::string(full)) {}  // NOLINT(runtime/explicit)
  std::string full;       ///< the fleet's token: every call (empty: loopback peers only)
  std::string read_only;  ///< `Access::kRead` calls only (empty: none); needs `full`
};

/// The verdict for a caller that is (or is not) on `loopback` and presented `presented` (null:
/// nothing), on a tracker whose token is `token` (empty: loopback only). Constant-time compare.
AccessRefusal CheckAccess(const std::string& token, bool loopback, const std::string* presented);

/// As above for a tracker with `tokens`, for a call that `needs` read or write access: the
/// read-only token passes `Access::kRead` calls and is refused (`kReadOnly`) for the others.
AccessRefusal CheckAccess(const AccessTokens& tokens, bool loopback, const std::string* presented,
                          Access needs);

/// The message a refused caller gets; `peer` names it.
std::string RefusalMessage(AccessRefusal refusal, const std::string& peer);

/// OK when the call carries `token` (compared in constant time) or, with an empty `token`, comes
/// from a loopback peer; UNAUTHENTICATED or PERMISSION_DENIED with the reason otherwise.
grpc::Status AuthorizeCall(const grpc::ServerContextBase& context, const std::string& token);

/// As above with `tokens`, for a call that `needs` read or write access (PERMISSION_DENIED for
/// the read-only token on a write).
grpc::Status AuthorizeCall(const grpc::ServerContextBase& context, const AccessTokens& tokens,
                           Access needs);

}  // namespace tracker
}  // namespace tessera

#endif  // TESSERA_TRACKER_AUTHORIZE_H_
