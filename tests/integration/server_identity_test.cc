// A client checks on connect that the server is the granted one: a process holding the granted
// server's port that cannot prove it (no grant key) gets refused before anything is uploaded.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <signal.h>

#include <atomic>
#include <chrono>

#include "fleet/client/remote_session.h"
#include "proto/device.grpc.pb.h"
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
  grpc::Status Upload(grpc::ServerContext*, grpc::ServerReader<device::v1::UploadChunk>* reader,
                      device::v1::UploadReply*) override {
    device::v1::UploadChunk chunk;
    while (reader->Read(&chunk)) ++uploaded_chunks;
    return grpc::Status::OK;
  }
  std::atomic<int> opened{0};
  std::atomic<int> uploaded_chunks{0};
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

// The granted server proved itself, then died, and another process took its port: the session's
// channel must not connect again to that process.
TEST(ServerIdentityTest, ASessionIsNotContinuedOnAnotherProcessAtTheSamePort) {
  testing::Daemon tracker("tracker/tessera-tracker", {"--listen", "127.0.0.1:0"});
  auto server = std::make_unique<testing::Daemon>(
      "rpc_server/tessera-rpc-server",
      std::vector<std::string>{"--tracker", tracker.address(), "--key", "cpu", "--listen",
                               "127.0.0.1:0", "--workdir", testing::MakeTempDir("identity")});
  const std::string address = server->address();
  fleet::TrackerOptions options;
  options.address = tracker.address();
  auto client = std::make_shared<fleet::TrackerClient>(options);
  fleet::SessionOptions request;
  request.key = "cpu";
  request.queue_timeout_ms = 10000;
  // The tracker may grant the server before the server has its registration's grant key.
  std::unique_ptr<fleet::RemoteSession> session;
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        try {
          session = fleet::RemoteSession::Open(client, request);
          return true;
        } catch (const FleetError&) {
          return false;
        }
      },
      10000));
  session->Upload("first.so", "bytes for the real server");

  server->Stop(SIGKILL);
  Impostor impostor;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&impostor);
  std::unique_ptr<grpc::Server> thief = builder.BuildAndStart();
  ASSERT_NE(port, 0) << "could not take over " << address;
  ASSERT_TRUE(testing::WaitFor([&] { return !session->connection_up(); }, 10000))
      << "the client never saw the connection drop";

  try {
    session->Upload("second.so", "secret bytes");
    FAIL() << "the upload went through";
  } catch (const FleetError& e) {
    EXPECT_EQ(e.code(), FleetErrorCode::kDeviceLost) << e.what();
    EXPECT_EQ(std::string(e.what()), "device lost: the connection to server " + address +
                                         " dropped since the session opened");
  }
  session.reset();
  EXPECT_EQ(impostor.uploaded_chunks, 0);
  thief->Shutdown(std::chrono::system_clock::now());
}

}  // namespace
}  // namespace tessera
