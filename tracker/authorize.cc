#include "tracker/authorize.h"

#include "fleet/secrets.h"

namespace tessera {
namespace tracker {

bool IsLoopbackPeer(const std::string& peer) {
  for (const char* prefix : {"ipv4:127.", "ipv6:[::1]:", "ipv6:%5B::1%5D:", "ipv6:[::ffff:127.",
                             "ipv6:%5B::ffff:127.", "unix:"}) {
    if (peer.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

AccessRefusal CheckAccess(const std::string& token, bool loopback, const std::string* presented) {
  if (token.empty()) return loopback ? AccessRefusal::kNone : AccessRefusal::kNotLoopback;
  if (presented == nullptr) return AccessRefusal::kMissingToken;
  return fleet::SecretsEqual(*presented, token) ? AccessRefusal::kNone : AccessRefusal::kWrongToken;
}

AccessRefusal CheckAccess(const AccessTokens& tokens, bool loopback, const std::string* presented,
                          Access needs) {
  const AccessRefusal full = CheckAccess(tokens.full, loopback, presented);
  if (full != AccessRefusal::kWrongToken || tokens.read_only.empty()) return full;
  if (!fleet::SecretsEqual(*presented, tokens.read_only)) return AccessRefusal::kWrongToken;
  return needs == Access::kRead ? AccessRefusal::kNone : AccessRefusal::kReadOnly;
}

std::string RefusalMessage(AccessRefusal refusal, const std::string& peer) {
  switch (refusal) {
    case AccessRefusal::kNone:
      return "";
    case AccessRefusal::kNotLoopback:
      return "this tracker runs without --token-file and accepts loopback clients only; "
             "refused peer " +
             peer;
    case AccessRefusal::kMissingToken:
      return "missing token: this tracker requires the shared token (--token-file)";
    case AccessRefusal::kWrongToken:
      return "wrong token";
    case AccessRefusal::kReadOnly:
      return "the read-only token reads the shared log and the fleet status only; this call needs "
             "the fleet's token";
  }
  return "refused";
}

namespace {

grpc::Status StatusOf(AccessRefusal refusal, const std::string& peer) {
  switch (refusal) {
    case AccessRefusal::kNone:
      return grpc::Status::OK;
    case AccessRefusal::kNotLoopback:
    case AccessRefusal::kReadOnly:
      return grpc::Status(grpc::StatusCode::PERMISSION_DENIED, RefusalMessage(refusal, peer));
    default:
      return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, RefusalMessage(refusal, peer));
  }
}

// The token the call carries, or null.
const std::string* PresentedToken(const grpc::ServerContextBase& context, std::string* storage) {
  const auto& metadata = context.client_metadata();
  auto it = metadata.find(fleet::kTokenHeader);
  if (it == metadata.end()) return nullptr;
  storage->assign(it->second.data(), it->second.size());
  return storage;
}

}  // namespace

grpc::Status AuthorizeCall(const grpc::ServerContextBase& context, const std::string& token) {
  std::string presented;
  return StatusOf(
      CheckAccess(token, IsLoopbackPeer(context.peer()), PresentedToken(context, &presented)),
      context.peer());
}

grpc::Status AuthorizeCall(const grpc::ServerContextBase& context, const AccessTokens& tokens,
                           Access needs) {
  std::string presented;
  return StatusOf(CheckAccess(tokens, IsLoopbackPeer(context.peer()),
                              PresentedToken(context, &presented), needs),
                  context.peer());
}

}  // namespace tracker
}  // namespace tessera
