#include "tracker/tracker_service.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tests/testing/fake_clock.h"
#include "tests/testing/wait_for.h"

namespace tessera {
namespace tracker {
namespace {

TEST(TrackerServiceTest, OnlyLoopbackPeersCountAsLocal) {
  EXPECT_TRUE(IsLoopbackPeer("ipv4:127.0.0.1:40000"));
  EXPECT_TRUE(IsLoopbackPeer("ipv4:127.1.2.3:40000"));
  EXPECT_TRUE(IsLoopbackPeer("ipv6:[::1]:40000"));
  EXPECT_TRUE(IsLoopbackPeer("ipv6:%5B::1%5D:40000"));
  EXPECT_TRUE(IsLoopbackPeer("ipv6:[::ffff:127.0.0.1]:40000"));
  EXPECT_TRUE(IsLoopbackPeer("unix:/tmp/tracker.sock"));
  EXPECT_FALSE(IsLoopbackPeer("ipv4:10.0.0.7:40000"));
  EXPECT_FALSE(IsLoopbackPeer("ipv4:192.168.1.127:40000"));
  EXPECT_FALSE(IsLoopbackPeer("ipv6:[::12]:40000"));
  EXPECT_FALSE(IsLoopbackPeer("ipv6:[fe80::1]:40000"));
  EXPECT_FALSE(IsLoopbackPeer(""));
}

using testing::FakeClock;

// A tracker service on 127.0.0.1 whose lease clock is `clock`.
class LeaseClockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FleetSettings settings;
    settings.heartbeat_ms = 100;
    settings.lease_timeout_ms = 1000;
    settings.max_session_ms = 60000;
    service_ = std::make_unique<TrackerService>(settings, "", nullptr, clock_);
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(service_.get());
    // Few threads for the handlers that run on one: queued requests must not need any.
    grpc::ResourceQuota quota("tracker_service_test");
    quota.SetMaxThreads(kServerThreads);
    builder.SetResourceQuota(quota);
    server_ = builder.BuildAndStart();
    ASSERT_NE(port, 0);
    stub_ = v1::Tracker::NewStub(grpc::CreateChannel("127.0.0.1:" + std::to_string(port),
                                                     grpc::InsecureChannelCredentials()));
  }
  void TearDown() override {
    server_->Shutdown(std::chrono::system_clock::now());
    service_.reset();
  }

  grpc::Status Register(const std::string& id) {
    v1::RegisterRequest request;
    request.set_server_id(id);
    request.set_key("cpu");
    request.set_address("127.0.0.1:1");
    v1::RegisterReply reply;
    grpc::ClientContext context;
    return stub_->Register(&context, request, &reply);
  }
  grpc::Status Heartbeat(const std::string& id) {
    v1::HeartbeatRequest request;
    request.set_server_id(id);
    v1::HeartbeatReply reply;
    grpc::ClientContext context;
    return stub_->Heartbeat(&context, request, &reply);
  }
  grpc::Status RequestSession(int64_t queue_timeout_ms, v1::SessionReply* reply) {
    v1::SessionRequest request;
    request.set_key("cpu");
    request.set_queue_timeout_ms(queue_timeout_ms);
    grpc::ClientContext context;
    return stub_->RequestSession(&context, request, reply);
  }
  grpc::Status KeepSession(const std::string& session_id) {
    v1::SessionRef request;
    request.set_session_id(session_id);
    v1::Empty reply;
    grpc::ClientContext context;
    return stub_->KeepSession(&context, request, &reply);
  }
  // The length of the queue (of the one key), 0 without one.
  int QueueLength() {
    v1::FleetStatus status = Status();
    return status.queues_size() > 0 ? status.queues(0).length() : 0;
  }
  // True once the queue holds `length` requests (within 10 s).
  bool WaitForQueue(int length) {
    return testing::WaitFor([&] { return QueueLength() == length; }, 10000);
  }
  v1::FleetStatus Status() {
    v1::FleetStatus status;
    grpc::ClientContext context;
    stub_->Status(&context, v1::StatusRequest(), &status);
    return status;
  }
  grpc::Status Release(const std::string& session_id) {
    v1::SessionRef request;
    request.set_session_id(session_id);
    v1::Empty reply;
    grpc::ClientContext context;
    return stub_->ReleaseSession(&context, request, &reply);
  }
  static constexpr int kServerThreads = 4;
  // Returns once the lease clock has run a pass that saw the time the test set.
  void LetTheClockTick() { ASSERT_TRUE(service_->AwaitClockPass()) << "the lease clock stopped"; }

  std::shared_ptr<FakeClock> clock_ = std::make_shared<FakeClock>();
  std::unique_ptr<TrackerService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<v1::Tracker::Stub> stub_;
};

TEST_F(LeaseClockTest, WallClockJumpsNeitherExpireNorExtendLeases) {
  ASSERT_TRUE(Register("s1").ok());
  v1::SessionReply granted;
  ASSERT_TRUE(RequestSession(5000, &granted).ok());
  // Grants carry wall-clock expiry: servers on other machines check it with their own clocks.
  EXPECT_EQ(granted.grant().expires_unix_ms(), clock_->unix + 60000);
  const std::string session = granted.grant().session_id();

  for (int64_t jump : {int64_t{3600000}, int64_t{-7200000}}) {
    clock_->unix += jump;
    LetTheClockTick();
    EXPECT_TRUE(Heartbeat("s1").ok()) << "a wall-clock jump of " << jump << " ms killed the server";
    EXPECT_TRUE(KeepSession(session).ok())
        << "a wall-clock jump of " << jump << " ms ended the session";
    EXPECT_EQ(Status().servers(0).state(), "busy");
  }
  // The steady clock alone runs the leases: a silent server dies after the lease timeout.
  clock_->steady += 1000;
  LetTheClockTick();
  EXPECT_EQ(Status().servers(0).state(), "dead");
  grpc::Status lost = KeepSession(session);
  EXPECT_EQ(lost.error_code(), grpc::StatusCode::ABORTED);
  EXPECT_NE(lost.error_message().find("device lost"), std::string::npos) << lost.error_message();
}

// The job service of a tracker sharing its jobs leases only what this tracker's devices measure.
TEST_F(LeaseClockTest, ATrackerBrokersTheKeysOfItsLiveServers) {
  EXPECT_FALSE(service_->Brokers("cpu"));
  ASSERT_TRUE(Register("s1").ok());
  EXPECT_TRUE(service_->Brokers("cpu"));
  EXPECT_FALSE(service_->Brokers("phone"));
  clock_->steady += 1000;
  LetTheClockTick();
  EXPECT_FALSE(service_->Brokers("cpu")) << "its only server died";
}

TEST_F(LeaseClockTest, QueueDeadlinesRunOnTheSteadyClock) {
  auto waiting = std::async(std::launch::async, [this] {
    v1::SessionReply reply;
    return RequestSession(500, &reply);
  });
  ASSERT_TRUE(WaitForQueue(1));
  clock_->unix += 3600000;
  LetTheClockTick();
  // The clock has run with the new time: the request is still in the queue, not answered.
  ASSERT_EQ(QueueLength(), 1) << "a wall-clock jump expired a queued request";
  ASSERT_EQ(waiting.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout)
      << "a wall-clock jump expired a queued request";
  clock_->steady += 500;
  ASSERT_EQ(waiting.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  EXPECT_EQ(waiting.get().error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
}

TEST_F(LeaseClockTest, AGrantToAClientThatVanishedIsReclaimedWithinTheLeaseTimeout) {
  ASSERT_TRUE(Register("s1").ok());
  v1::SessionReply granted;
  ASSERT_TRUE(RequestSession(5000, &granted).ok());  // and the client is never heard of again
  clock_->steady += 999;
  ASSERT_TRUE(Heartbeat("s1").ok());
  LetTheClockTick();
  EXPECT_EQ(Status().servers(0).state(), "busy");
  clock_->steady += 1;
  ASSERT_TRUE(Heartbeat("s1").ok());
  LetTheClockTick();
  EXPECT_EQ(Status().servers(0).state(), "free");
  v1::SessionReply next;
  EXPECT_TRUE(RequestSession(1000, &next).ok());
}

TEST_F(LeaseClockTest, QueuedRequestsHoldNoServerThreadAndEachReleaseGrantsTheNext) {
  constexpr int kClients = 10 * kServerThreads;
  struct Waiting {
    grpc::ClientContext context;
    v1::SessionRequest request;
    v1::SessionReply reply;
  };
  std::vector<std::unique_ptr<Waiting>> waiting;
  std::mutex mu;
  std::condition_variable answered;
  std::vector<std::string> granted;
  int failed = 0;
  for (int i = 0; i < kClients; ++i) {
    waiting.push_back(std::make_unique<Waiting>());
    Waiting* call = waiting.back().get();
    call->request.set_key("cpu");
    call->request.set_queue_timeout_ms(60000);
    stub_->async()->RequestSession(&call->context, &call->request, &call->reply,
                                   [&, call](grpc::Status status) {
                                     std::lock_guard<std::mutex> lock(mu);
                                     if (status.ok()) {
                                       granted.push_back(call->reply.grant().session_id());
                                     } else {
                                       ++failed;
                                     }
                                     answered.notify_all();
                                   });
  }
  ASSERT_TRUE(WaitForQueue(kClients)) << "the queue never held every request";
  // With every request waiting, the tracker still answers (each one held a thread before).
  ASSERT_TRUE(Register("s1").ok());
  for (int served = 1; served <= kClients; ++served) {
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(answered.wait_for(lock, std::chrono::seconds(10),
                                  [&] { return static_cast<int>(granted.size()) >= served; }))
        << "grant " << served << " never came";
    const std::string session = granted.back();
    lock.unlock();
    ASSERT_TRUE(Release(session).ok());
  }
  EXPECT_EQ(failed, 0);
}

// The figure for a path once it covers `grants` grants (within 10 s: a call reports when gRPC is
// done sending its reply, which can be just after the client has it).
std::optional<v1::GrantLatency> GrantLatencyOf(const std::function<v1::FleetStatus()>& status,
                                               const std::string& path, int64_t grants) {
  std::optional<v1::GrantLatency> found;
  testing::WaitFor(
      [&] {
        const v1::FleetStatus now = status();
        for (const v1::GrantLatency& latency : now.grant_latency()) {
          if (latency.path() == path && latency.grants() == grants) found = latency;
        }
        return found.has_value();
      },
      10000);
  return found;
}

TEST_F(LeaseClockTest, TheTrackerTimesItsOwnShareOfEachGrant) {
  ASSERT_TRUE(Register("s1").ok());
  v1::SessionReply first;
  ASSERT_TRUE(RequestSession(5000, &first).ok());  // a free server: the "free" path
  auto queued = std::async(std::launch::async, [this] {
    v1::SessionReply reply;
    return RequestSession(5000, &reply);
  });
  ASSERT_TRUE(WaitForQueue(1));
  ASSERT_TRUE(Release(first.grant().session_id()).ok());  // hands the server on: "handoff"
  ASSERT_TRUE(queued.get().ok());
  auto status = [this] { return Status(); };
  for (const std::string path : {"free", "handoff"}) {
    std::optional<v1::GrantLatency> latency = GrantLatencyOf(status, path, 1);
    ASSERT_TRUE(latency.has_value()) << "no " << path << " grant timed";
    EXPECT_GE(latency->decided_p50_ms(), 0) << path;
    EXPECT_GE(latency->sent_p50_ms(), latency->decided_p50_ms()) << path;
    EXPECT_EQ(latency->sent_max_ms(), latency->sent_p99_ms()) << path;
    EXPECT_LT(latency->sent_max_ms(), 10000) << path;
  }
}

}  // namespace
}  // namespace tracker
}  // namespace tessera
