/// \file
/// The tracker's relay for device servers behind NAT (`tessera-rpc-server --dial-out`, see
/// proto/relay.proto). `RelayService` accepts the stream such a server keeps open to the tracker;
/// its `device_relay()` takes the device calls (proto/device.proto) that clients send to the
/// tracker for sessions granted on such a server, and forwards each message over that stream as
/// opaque bytes. Grants, the server's proof and every limit are checked by the device server
/// itself, as for a direct connection; the relay only routes a call to the server of the open
/// session the call names (metadata `x-tessera-session`) and refuses any other.
#ifndef TESSERA_TRACKER_RELAY_SERVICE_H_
#define TESSERA_TRACKER_RELAY_SERVICE_H_

#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/grpcpp.h>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "proto/relay.grpc.pb.h"

namespace tessera {
namespace tracker {

/// What the relay asks of the rest of the tracker.
struct RelayHooks {
  /// OK when the peer may attach a server (the fleet's token, or loopback without one).
  std::function<grpc::Status(const grpc::ServerContextBase&)> authorize;
  /// The server id of open session `session_id`, or "" when no such session is open.
  std::function<std::string(const std::string& session_id)> server_of_session;
};

class RelayLink;

/// The relay: attached servers, and the generic service that forwards clients' device calls.
class RelayService final : public relay::v1::Relay::CallbackService {
 public:
  /// A relay with `hooks`.
  explicit RelayService(RelayHooks hooks);
  /// Stops forwarding (the gRPC server is shut down first).
  ~RelayService() override;

  /// A dial-out server attaches; a newer stream of the same server replaces the older one.
  grpc::ServerBidiReactor<relay::v1::RelayFrame, relay::v1::RelayFrame>* Attach(
      grpc::CallbackServerContext* context) override;
  /// Serves the device calls of relayed sessions; register it with
  /// `ServerBuilder::RegisterCallbackGenericService`.
  grpc::CallbackGenericService* device_relay() { return device_relay_.get(); }
  /// True while server `server_id` is attached.
  bool Attached(const std::string& server_id);

  /// Private to the relay: the link of `server_id`, or null.
  std::shared_ptr<RelayLink> LinkOf(const std::string& server_id);
  /// Private to the relay: `link` says hello as its server.
  void Adopt(const std::shared_ptr<RelayLink>& link);
  /// Private to the relay: `link` went down.
  void Forget(const RelayLink* link);
  /// Private to the relay: the hooks.
  const RelayHooks& hooks() const { return hooks_; }

 private:
  RelayHooks hooks_;
  std::unique_ptr<grpc::CallbackGenericService> device_relay_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<RelayLink>> links_;  ///< server id -> its stream
};

}  // namespace tracker
}  // namespace tessera

#endif  // TESSERA_TRACKER_RELAY_SERVICE_H_
