// The rpc_server's session limit runs on the steady clock: a wall-clock jump neither ends a
// session nor extends it; the grant's expiry (wall-clock time, written by the tracker) is checked
// once, when the session opens.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>

#include "proto/grant.h"
#include "rpc_server/device_service.h"
#include "tests/testing/fake_clock.h"

namespace tessera {
namespace fleet {
namespace {

using testing::FakeClock;

class SessionClockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    DeviceOptions options;
    options.server_id = "board";
    options.key = "cpu";
    options.workdir = tmp ? tmp : "/tmp";
    options.clock = clock_;
    service_ = std::make_unique<DeviceService>(options);
    service_->SetGrantKey("grant-key");
  }
  // Opens a session whose grant expires `limit_ms` from the fake wall clock's now.
  grpc::Status Open(const std::string& id, int64_t limit_ms) {
    device::v1::OpenSessionRequest open;
    open.mutable_grant()->set_session_id(id);
    open.mutable_grant()->set_key("cpu");
    open.mutable_grant()->set_server_id("board");
    open.mutable_grant()->set_expires_unix_ms(clock_->unix + limit_ms);
    SignGrant("grant-key", open.mutable_grant());
    device::v1::SessionRef reply;
    grpc::ServerContext context;
    return service_->OpenSession(&context, &open, &reply);
  }
  grpc::Status Alloc(const std::string& id) {
    device::v1::AllocArrayRequest request;
    request.set_session_id(id);
    request.add_shape(4);
    request.set_dtype("float32");
    device::v1::AllocArrayReply reply;
    grpc::ServerContext context;
    return service_->AllocArray(&context, &request, &reply);
  }

  std::shared_ptr<FakeClock> clock_ = std::make_shared<FakeClock>();
  std::unique_ptr<DeviceService> service_;
};

TEST_F(SessionClockTest, AWallClockJumpForwardDoesNotEndASession) {
  ASSERT_TRUE(Open("s1", 10000).ok());
  clock_->unix += 3600000;  // NTP, or a manual `date`, moves the wall clock an hour ahead
  EXPECT_TRUE(Alloc("s1").ok());
  // What the server reports to the tracker moves with the wall clock: still 10 s from now.
  EXPECT_EQ(service_->ActiveSession().second, clock_->unix + 10000);
}

TEST_F(SessionClockTest, AWallClockJumpBackDoesNotExtendASession) {
  ASSERT_TRUE(Open("s1", 10000).ok());
  clock_->unix -= 3600000;
  clock_->steady += 9000;
  EXPECT_TRUE(Alloc("s1").ok());
  clock_->steady += 1000;
  grpc::Status ended = Alloc("s1");
  EXPECT_EQ(ended.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(ended.error_message(), "session 's1' reached its time limit");
  EXPECT_EQ(service_->ActiveSession().first, "");
}

TEST_F(SessionClockTest, AnExpiredGrantIsRefusedOnTheWallClock) {
  grpc::Status refused = Open("s1", 0);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(refused.error_message(), "grant refused: expired");
}

}  // namespace
}  // namespace fleet
}  // namespace tessera
