// The tracker says what happens: one log line per event, naming key, server and session.
#include <gtest/gtest.h>

#include <sstream>

#include "common/error.h"
#include "common/log.h"
#include "tracker/fleet_state.h"

namespace tessera {
namespace tracker {
namespace {

class FleetEventsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SetLogLevel(LogLevel::kInfo);
    SetLogStreamForTesting(&log_);
  }
  void TearDown() override { SetLogStreamForTesting(nullptr); }
  bool Logged(const std::string& text) const { return log_.str().find(text) != std::string::npos; }
  std::ostringstream log_;
};

TEST_F(FleetEventsTest, RegistrationGrantAndDeathAreLogged) {
  FleetSettings settings;
  settings.heartbeat_ms = 100;
  settings.lease_timeout_ms = 500;
  FleetState fleet(settings);
  v1::RegisterRequest server;
  server.set_server_id("s1");
  server.set_key("cpu");
  server.set_address("127.0.0.1:9091");
  fleet.RegisterServer(server, 0);
  EXPECT_TRUE(Logged(" INFO server registered key=cpu server=s1 address=127.0.0.1:9091\n"))
      << log_.str();

  PendingRequest request;
  request.request_id = "r1";
  request.key = "cpu";
  request.user = "alice";
  request.deadline_ms = 100000;
  fleet.Enqueue(request);
  auto outcomes = fleet.Dispatch(10);
  ASSERT_TRUE(outcomes["r1"].granted);
  const std::string session = outcomes["r1"].grant.session_id();
  EXPECT_TRUE(
      Logged("INFO grant issued key=cpu server=s1 session=" + session + " user=alice request=r1\n"))
      << log_.str();

  fleet.Expire(10 + settings.lease_timeout_ms);
  EXPECT_TRUE(Logged("WARNING server declared dead key=cpu server=s1 address=127.0.0.1:9091"))
      << log_.str();
  EXPECT_TRUE(Logged("INFO session ended key=cpu server=s1 session=" + session +
                     ": device lost: server '127.0.0.1:9091'"))
      << log_.str();
  // Lines start with a UTC timestamp.
  EXPECT_EQ(log_.str().substr(0, 2), "20") << log_.str();
}

TEST_F(FleetEventsTest, ExpiredRequestsAndTheLevelAreHonoured) {
  FleetState fleet(FleetSettings{});
  PendingRequest request;
  request.request_id = "r2";
  request.key = "gpu";
  request.user = "bob";
  request.deadline_ms = 50;
  fleet.Enqueue(request);
  fleet.Expire(100);
  EXPECT_TRUE(Logged("INFO request expired key=gpu request=r2 user=bob")) << log_.str();
  SetLogLevel(LogLevel::kWarning);
  fleet.Enqueue(request);
  log_.str("");
  fleet.Expire(200);
  EXPECT_EQ(log_.str(), "");
  SetLogLevel(LogLevel::kInfo);
}

TEST(LogLevelTest, NamesParseAndUnknownOnesAreConfigErrors) {
  EXPECT_EQ(ParseLogLevel("debug"), LogLevel::kDebug);
  EXPECT_EQ(ParseLogLevel("warning"), LogLevel::kWarning);
  EXPECT_THROW(ParseLogLevel("loud"), ConfigError);
}

}  // namespace
}  // namespace tracker
}  // namespace tessera
