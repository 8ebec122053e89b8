#include "tracker/state_store.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>

#include "common/error.h"

namespace tessera {
namespace tracker {
namespace {

std::string TempDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return std::string(tmp ? tmp : "/tmp") + "/" + name;
}

TEST(StateStoreTest, KeysServersAndQueuedRequestsSurviveReopening) {
  const std::string dir = TempDir("state-reopen");
  {
    StateStore store(dir);
    ServerEntry server;
    server.server_id = "s1";
    server.key = "board";
    server.address = "10.0.0.2:9091";
    server.info.set_arch("aarch64");
    server.info.set_cores(6);
    store.SaveServer(server);
    PendingRequest request;
    request.request_id = "r1";
    request.key = "board";
    request.user = "alice";
    request.priority = 3;
    request.seq = 42;
    request.deadline_ms = 123456;
    store.SaveRequest(request);
    request.request_id = "r2";
    store.SaveRequest(request);
    store.DeleteRequest("r2");
  }
  StateStore store(dir);
  FleetState state(FleetSettings{});
  store.Load(&state);
  v1::FleetStatus status = state.Status(0);
  ASSERT_EQ(status.keys_size(), 1);
  EXPECT_EQ(status.keys(0), "board");
  ASSERT_EQ(status.servers_size(), 1);
  EXPECT_EQ(status.servers(0).state(), "dead");  // until it registers again
  EXPECT_EQ(status.servers(0).info().arch(), "aarch64");
  EXPECT_EQ(status.servers(0).last_heartbeat_age_ms(), -1);
  ASSERT_EQ(state.queue().size(), 1u);
  const PendingRequest& restored = state.queue().at("r1");
  EXPECT_EQ(restored.user, "alice");
  EXPECT_EQ(restored.priority, 3);
  EXPECT_EQ(restored.seq, 42u);
  EXPECT_EQ(restored.deadline_ms, 123456);
  EXPECT_FALSE(restored.attached);
}

TEST(StateStoreTest, UnusableDirectoryIsAConfigError) {
  try {
    StateStore store("/proc/no/such/dir");
    FAIL();
  } catch (const fleet::ConfigError& e) {
    EXPECT_EQ(
        std::string(e.what()).rfind("--state '/proc/no/such/dir': cannot create directory", 0), 0u)
        << e.what();
  }
}

// A corrupt state file is the user's to fix: a ConfigError naming it (the daemon exits 2), not
// an internal error.
TEST(StateStoreTest, CorruptStateIsAConfigErrorNamingTheFile) {
  const std::string dir = TempDir("state-corrupt");
  mkdir(dir.c_str(), 0700);
  std::ofstream(dir + "/tracker.db") << std::string(8192, 'x');
  try {
    StateStore store(dir);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("tracker state '" + dir + "/tracker.db'"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tracker
}  // namespace tessera
