// A tracker call that fails UNKNOWN on a connected channel (gRPC 1.51's "Stream removed" when the
// connection under a call fails) is tried again: the bench lost a client's requests to it.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "fleet/client/tracker_client.h"

namespace tessera {
namespace fleet {
namespace {

namespace v1 = tracker::v1;

// Fails the first `failures` calls of each method UNKNOWN, then answers.
class FlakyTracker final : public v1::Tracker::Service {
 public:
  explicit FlakyTracker(int failures) : failures_(failures) {}

  grpc::Status RequestSession(grpc::ServerContext*, const v1::SessionRequest* request,
                              v1::SessionReply* reply) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      request_ids_.push_back(request->request_id());
    }
    if (requests_++ < failures_) return grpc::Status(grpc::StatusCode::UNKNOWN, "Stream removed");
    reply->mutable_grant()->set_session_id("s1");
    return grpc::Status::OK;
  }
  grpc::Status ReleaseSession(grpc::ServerContext*, const v1::SessionRef*, v1::Empty*) override {
    if (releases_++ < failures_) return grpc::Status(grpc::StatusCode::UNKNOWN, "Stream removed");
    return grpc::Status::OK;
  }
  grpc::Status Status(grpc::ServerContext*, const v1::StatusRequest*, v1::FleetStatus*) override {
    return grpc::Status::OK;
  }
  std::vector<std::string> request_ids() {
    std::lock_guard<std::mutex> lock(mu_);
    return request_ids_;
  }

 private:
  const int failures_;
  std::atomic<int> requests_{0}, releases_{0};
  std::mutex mu_;
  std::vector<std::string> request_ids_;
};

class TrackerClientRetryTest : public ::testing::Test {
 protected:
  void Start(int failures) {
    tracker_ = std::make_unique<FlakyTracker>(failures);
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(tracker_.get());
    server_ = builder.BuildAndStart();
    ASSERT_NE(port, 0);
    TrackerOptions options;
    options.address = "127.0.0.1:" + std::to_string(port);
    options.retry_window_ms = 2000;
    client_ = std::make_unique<TrackerClient>(options);
    client_->Status();  // the channel is connected before any call fails
  }
  void TearDown() override {
    if (server_) server_->Shutdown(std::chrono::system_clock::now());
  }

  std::unique_ptr<FlakyTracker> tracker_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<TrackerClient> client_;
};

TEST_F(TrackerClientRetryTest, UnknownOnAConnectedChannelIsRetriedUnderTheSameRequestId) {
  Start(2);
  SessionOptions options;
  options.key = "cpu";
  options.queue_timeout_ms = 1000;
  v1::SessionReply reply = client_->RequestSession(options);
  EXPECT_EQ(reply.grant().session_id(), "s1");
  std::vector<std::string> ids = tracker_->request_ids();
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_FALSE(ids[0].empty());
  EXPECT_EQ(ids[1], ids[0]) << "a retry must keep the request's place in the queue";
  EXPECT_EQ(ids[2], ids[0]);
  EXPECT_NO_THROW(client_->ReleaseSession("s1"));
}

TEST_F(TrackerClientRetryTest, AnUnknownThatPersistsSurfacesWhenTheWindowEnds) {
  Start(1000000);
  try {
    client_->ReleaseSession("s1");
    FAIL() << "a release that always fails went through";
  } catch (const FleetError& e) {
    EXPECT_EQ(e.code(), FleetErrorCode::kCallFailed);
    EXPECT_NE(std::string(e.what()).find("(ReleaseSession): Stream removed"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace fleet
}  // namespace tessera
