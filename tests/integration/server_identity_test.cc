// A client checks on connect that the server is the granted one: a process holding the granted
// server's port that cannot prove it (no grant key) gets refused before anything is uploaded.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <atomic>

#include "proto/device.grpc.pb.h"
#include "rpc_server/client/remote_session.h"
#include "rpc_server/tracker_link.h"
#include "tests/integration/daemon.h"

namespace tessera {
namespace {

using fleet::FleetError;
using fleet::FleetErrorCode;

// Accepts any grant and claims to be whichever server the grant names.
class Impostor final : public device::v1::Device::Service {
 public:
  grpc::Status OpenSession(grpc::ServerContext*, const device::v1::OpenSessionRequest* request,
                           device::v1::SessionRef* reply) override {
    ++opened;
    reply->set_session_id(request->grant().session_id());
    reply->set_server_id(request->grant().server_id());
    reply->set_server_proof(std::string(32, 'x'));
    return grpc::Status::OK;
  }
  std::atomic<int> opened{0};
};

TEST(ServerIdentityTest, AServerThatCannotProveItIsTheGrantedOneIsRefused) {
  Impostor impostor;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&impostor);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(port, 0);

  testing::Daemon tracker("tracker/tessera-tracker", {"--listen", "127.0.0.1:0"});
  // The real server registered this address, and then (say) died; the impostor took its port.
  fleet::TrackerLinkOptions link;
  link.tracker = tracker.address();
  link.server_id = "real-server";
  link.key = "cpu";
  link.address = "127.0.0.1:" + std::to_string(port);
  fleet::TrackerLink registered(link, fleet::LinkCallbacks());

  fleet::TrackerOptions options;
  options.address = tracker.address();
  auto client = std::make_shared<fleet::TrackerClient>(options);
  fleet::SessionOptions request;
  request.key = "cpu";
  request.queue_timeout_ms = 10000;
  try {
    auto session = fleet::RemoteSession::Open(client, request);
    session->Upload("kernel.so", "secret bytes");
    FAIL() << "the impostor was accepted";
  } catch (const FleetError& e) {
    EXPECT_EQ(e.code(), FleetErrorCode::kDeviceLost);
    EXPECT_EQ(std::string(e.what()),
              "device lost: the server at " + link.address +
                  " is not the granted server 'real-server' (it cannot prove it; another "
                  "process may hold the port)");
  }
  EXPECT_EQ(impostor.opened, 1);
  server->Shutdown(std::chrono::system_clock::now());
}

}  // namespace
}  // namespace tessera
