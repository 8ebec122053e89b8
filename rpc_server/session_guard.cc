#include "rpc_server/session_guard.h"

#include "common/log.h"
#include "proto/grant.h"

namespace tessera {
namespace fleet {
namespace {

grpc::Status Refuse(const tracker::v1::Grant& grant, const std::string& why) {
  TESSERA_LOG(kWarning) << "grant refused key=" << grant.key() << " server=" << grant.server_id()
                        << " session=" << grant.session_id() << ": " << why;
  return grpc::Status(grpc::StatusCode::PERMISSION_DENIED, "grant refused: " + why);
}

}  // namespace

grpc::Status SessionGuard::Admit(const tracker::v1::Grant& grant, int64_t now_ms) {
  if (grant_key_.empty()) {
    return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                        "this server is not registered with its tracker yet");
  }
  if (!GrantSignatureValid(grant_key_, grant)) {
    return Refuse(grant, "bad signature (not issued by this server's tracker, or altered)");
  }
  if (grant.key() != key_ || grant.server_id() != server_id_) {
    return Refuse(grant, "issued for server '" + grant.server_id() + "' (key '" + grant.key() +
                             "'), not this one");
  }
  if (grant.expires_unix_ms() <= now_ms) return Refuse(grant, "expired");
  for (auto it = used_.begin(); it != used_.end();) {
    it = it->second <= now_ms ? used_.erase(it) : std::next(it);
  }
  if (used_.count(grant.session_id()) != 0) return Refuse(grant, "already used (a replayed grant)");
  used_[grant.session_id()] = grant.expires_unix_ms();
  return grpc::Status::OK;
}

}  // namespace fleet
}  // namespace tessera
