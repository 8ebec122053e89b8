#include "tracker/fleet_state.h"

#include <gtest/gtest.h>

namespace tessera {
namespace tracker {
namespace {

v1::RegisterRequest Server(const std::string& id, const std::string& key) {
  v1::RegisterRequest request;
  request.set_server_id(id);
  request.set_key(key);
  request.set_address("127.0.0.1:" + id);
  return request;
}

PendingRequest Request(const std::string& id, const std::string& user, int priority,
                       int64_t deadline_ms = 1000000) {
  PendingRequest request;
  request.request_id = id;
  request.key = "cpu";
  request.user = user;
  request.priority = priority;
  request.deadline_ms = deadline_ms;
  return request;
}

FleetSettings Settings() {
  FleetSettings settings;
  settings.heartbeat_ms = 100;
  settings.lease_timeout_ms = 500;
  settings.max_session_ms = 10000;
  return settings;
}

// Grants requests one at a time on a single server and returns their ids in grant order.
std::vector<std::string> GrantOrder(FleetState* fleet, size_t count) {
  std::vector<std::string> order;
  int64_t now = 10;
  for (size_t i = 0; i < count; ++i) {
    auto outcomes = fleet->Dispatch(now);
    EXPECT_EQ(outcomes.size(), 1u);
    if (outcomes.empty()) break;
    order.push_back(outcomes.begin()->first);
    EXPECT_TRUE(fleet->ReleaseSession(outcomes.begin()->second.grant.session_id(), now));
  }
  return order;
}

TEST(FleetStateTest, StrictPriorityThenFifo) {
  FleetState fleet(Settings());
  fleet.Enqueue(Request("low-1", "u", 0));
  fleet.Enqueue(Request("high-1", "u", 5));
  fleet.Enqueue(Request("low-2", "u", 0));
  fleet.Enqueue(Request("high-2", "u", 5));
  fleet.RegisterServer(Server("s1", "cpu"), 0);
  EXPECT_EQ(GrantOrder(&fleet, 4),
            (std::vector<std::string>{"high-1", "high-2", "low-1", "low-2"}));
}

TEST(FleetStateTest, FairSharingBetweenUsersAtEqualPriority) {
  FleetState fleet(Settings());
  fleet.Enqueue(Request("a1", "alice", 0));
  fleet.Enqueue(Request("a2", "alice", 0));
  fleet.Enqueue(Request("a3", "alice", 0));
  fleet.Enqueue(Request("b1", "bob", 0));
  fleet.Enqueue(Request("b2", "bob", 0));
  fleet.RegisterServer(Server("s1", "cpu"), 0);
  EXPECT_EQ(GrantOrder(&fleet, 5), (std::vector<std::string>{"a1", "b1", "a2", "b2", "a3"}));
}

TEST(FleetStateTest, GrantsOnlyServersOfTheRequestedKey) {
  FleetState fleet(Settings());
  fleet.RegisterServer(Server("s1", "gpu"), 0);
  fleet.Enqueue(Request("r", "u", 0));
  EXPECT_TRUE(fleet.Dispatch(1).empty());
  fleet.RegisterServer(Server("s2", "cpu"), 2);
  auto outcomes = fleet.Dispatch(3);
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes["r"].grant.server_id(), "s2");
  EXPECT_EQ(fleet.Status(3).servers(1).state(), "busy");
}

TEST(FleetStateTest, RequestExpiresAtItsDeadline) {
  FleetState fleet(Settings());
  fleet.Enqueue(Request("r", "u", 0, /*deadline_ms=*/100));
  EXPECT_TRUE(fleet.Expire(99).empty());
  auto outcomes = fleet.Expire(100);
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_FALSE(outcomes["r"].granted);
  EXPECT_EQ(outcomes["r"].error,
            "no server for key 'cpu' became free before the queue deadline (1 request(s) were "
            "waiting for that key)");
  EXPECT_TRUE(fleet.queue().empty());
}

TEST(FleetStateTest, SilentServerDiesAndItsSessionIsLost) {
  FleetState fleet(Settings());
  fleet.RegisterServer(Server("s1", "cpu"), 0);
  fleet.Enqueue(Request("r", "u", 0));
  std::string session = fleet.Dispatch(0)["r"].grant.session_id();
  std::vector<std::string> ended;
  EXPECT_TRUE(fleet.Heartbeat("s1", session, 400, &ended));
  EXPECT_EQ(fleet.KeepSession(session, 400), "");
  fleet.Expire(800);
  EXPECT_EQ(fleet.KeepSession(session, 800), "");
  fleet.Expire(900);  // 500 ms after the last heartbeat
  EXPECT_EQ(fleet.Status(900).servers(0).state(), "dead");
  EXPECT_EQ(fleet.KeepSession(session, 900),
            "device lost: server '127.0.0.1:s1' (key 'cpu') missed heartbeats for 500 ms");
  EXPECT_FALSE(fleet.Heartbeat("s1", "", 950, &ended));  // it must register again
  fleet.RegisterServer(Server("s1", "cpu"), 1000);
  EXPECT_EQ(fleet.Status(1000).servers(0).state(), "free");
}

TEST(FleetStateTest, SessionEndsWhenTheClientStopsRenewingOrAtItsLimit) {
  FleetState fleet(Settings());
  fleet.RegisterServer(Server("s1", "cpu"), 0);
  fleet.RegisterServer(Server("s2", "cpu"), 0);
  PendingRequest limited = Request("limited", "u", 0);
  limited.session_limit_ms = 300;
  fleet.Enqueue(limited);
  fleet.Enqueue(Request("silent", "u", 0));
  auto outcomes = fleet.Dispatch(0);
  std::vector<std::string> ended;
  fleet.Heartbeat("s1", "", 250, &ended);
  fleet.Heartbeat("s2", "", 250, &ended);
  EXPECT_EQ(fleet.KeepSession(outcomes["limited"].grant.session_id(), 250), "");
  fleet.Expire(300);
  EXPECT_EQ(fleet.KeepSession(outcomes["limited"].grant.session_id(), 300),
            "session reached its wall-clock limit");
  fleet.Expire(500);
  EXPECT_EQ(fleet.KeepSession(outcomes["silent"].grant.session_id(), 500),
            "client stopped renewing the session");
  // Both servers are told to close the sessions and are free again.
  ended.clear();
  EXPECT_TRUE(fleet.Heartbeat("s1", "", 500, &ended));
  EXPECT_EQ(ended.size(), 1u);
  EXPECT_EQ(fleet.Status(500).sessions_size(), 0);
}

TEST(FleetStateTest, UnknownSessionsAreGivenGraceAfterAStart) {
  FleetState fleet(Settings());
  fleet.SetStartTime(1000);
  EXPECT_EQ(fleet.KeepSession("from-before-the-restart", 1400), "");
  EXPECT_EQ(fleet.KeepSession("from-before-the-restart", 1500),
            "unknown session 'from-before-the-restart'");
}

TEST(FleetStateTest, RestoredRequestsWaitForTheirClientAndKeepTheirPlace) {
  FleetState fleet(Settings());
  PendingRequest restored = Request("old", "u", 0);
  restored.seq = 7;
  restored.attached = false;
  fleet.Enqueue(restored);
  fleet.Enqueue(Request("new", "u", 0));
  fleet.RegisterServer(Server("s1", "cpu"), 0);
  auto outcomes = fleet.Dispatch(1);
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes.begin()->first, "new");  // the detached one is not granted to nobody
  fleet.ReleaseSession(outcomes.begin()->second.grant.session_id(), 2);
  fleet.Enqueue(Request("newer", "u", 0));
  fleet.Enqueue(Request("old", "u", 0));  // the client came back
  outcomes = fleet.Dispatch(3);
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes.begin()->first, "old");
}

TEST(FleetStateTest, ADialOutServerIsGrantedOnlyWhileAttachedToTheRelay) {
  FleetState fleet(Settings());
  fleet.SetRelayAttached("nat", true);  // it attaches before it registers
  v1::RegisterRequest server = Server("nat", "cpu");
  server.set_address("relay:nat");
  fleet.RegisterServer(server, 0);
  fleet.SetRelayAttached("nat", false);  // its stream dropped
  EXPECT_EQ(fleet.Status(10).servers(0).state(), "detached");
  fleet.Enqueue(Request("r1", "u", 0));
  EXPECT_TRUE(fleet.Dispatch(10).empty());
  fleet.SetRelayAttached("nat", true);
  EXPECT_EQ(fleet.Status(10).servers(0).state(), "free");
  auto outcomes = fleet.Dispatch(20);
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes.at("r1").grant.server_address(), "relay:nat");
}

}  // namespace
}  // namespace tracker
}  // namespace tessera
