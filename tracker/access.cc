#include "tracker/access.h"

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

Refusal CheckAccess(const std::string& token, bool loopback, const std::string* presented) {
  if (token.empty()) return loopback ? Refusal::kNone : Refusal::kNotLoopback;
  if (presented == nullptr) return Refusal::kMissingToken;
  return fleet::SecretsEqual(*presented, token) ? Refusal::kNone : Refusal::kWrongToken;
}

std::string RefusalMessage(Refusal refusal, const std::string& peer) {
  switch (refusal) {
    case Refusal::kNone:
      return "";
    case Refusal::kNotLoopback:
      return "this tracker runs without --token-file and accepts loopback clients only; "
             "refused peer " +
             peer;
    case Refusal::kMissingToken:
      return "missing token: this tracker requires the shared token (--token-file)";
    case Refusal::kWrongToken:
      return "wrong token";
  }
  return "refused";
}

grpc::Status AuthorizeRpc(grpc::ServerContext* context, const std::string& token) {
  const auto& metadata = context->client_metadata();
  auto it = metadata.find(kTokenHeader);
  std::string presented;
  if (it != metadata.end()) presented.assign(it->second.data(), it->second.size());
  const Refusal refusal = CheckAccess(token, IsLoopbackPeer(context->peer()),
                                      it == metadata.end() ? nullptr : &presented);
  switch (refusal) {
    case Refusal::kNone:
      return grpc::Status::OK;
    case Refusal::kNotLoopback:
      return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                          RefusalMessage(refusal, context->peer()));
    default:
      return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                          RefusalMessage(refusal, context->peer()));
  }
}

}  // namespace tracker
}  // namespace tessera
