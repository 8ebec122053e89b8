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

grpc::Status AuthorizeCall(const grpc::ServerContextBase& context, const std::string& token) {
  if (token.empty()) {
    if (IsLoopbackPeer(context.peer())) return grpc::Status::OK;
    return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                        "this tracker runs without --token-file and accepts loopback clients "
                        "only; refused peer " +
                            context.peer());
  }
  const auto& metadata = context.client_metadata();
  auto it = metadata.find("x-tessera-token");
  if (it == metadata.end()) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        "missing token: this tracker requires the shared token (--token-file)");
  }
  if (!fleet::SecretsEqual(std::string(it->second.data(), it->second.size()), token)) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "wrong token");
  }
  return grpc::Status::OK;
}

}  // namespace tracker
}  // namespace tessera
