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
  }
  return "refused";
}

grpc::Status AuthorizeCall(const grpc::ServerContextBase& context, const std::string& token) {
  const auto& metadata = context.client_metadata();
  auto it = metadata.find(fleet::kTokenHeader);
  std::string presented;
  if (it != metadata.end()) presented.assign(it->second.data(), it->second.size());
  const AccessRefusal refusal = CheckAccess(token, IsLoopbackPeer(context.peer()),
                                            it == metadata.end() ? nullptr : &presented);
  switch (refusal) {
    case AccessRefusal::kNone:
      return grpc::Status::OK;
    case AccessRefusal::kNotLoopback:
      return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                          RefusalMessage(refusal, context.peer()));
    default:
      return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                          RefusalMessage(refusal, context.peer()));
  }
}

}  // namespace tracker
}  // namespace tessera
