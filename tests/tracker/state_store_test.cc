#include "tracker/state_store.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>

#include "common/error.h"
#include "tests/testing/postgres_server.h"

namespace tessera {
namespace tracker {
namespace {

std::string TempDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return std::string(tmp ? tmp : "/tmp") + "/" + name;
}

// Each store: a SQLite file in the state directory, and a tracker's rows in a PostgreSQL
// database on a real server (skipped without one).
class StateStoreOnStoreTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string why_not;
    if (!testing::StoreLocation(GetParam(), &location_, &why_not)) GTEST_SKIP() << why_not;
  }
  std::unique_ptr<StateStore> Open(const std::string& dir, const std::string& name = "lab") {
    return location_.empty() ? std::make_unique<StateStore>(dir)
                             : std::make_unique<StateStore>("", location_, name);
  }
  std::string location_;  // empty: SQLite
};

TEST_P(StateStoreOnStoreTest, KeysServersAndQueuedRequestsSurviveReopening) {
  const std::string dir = TempDir("state-reopen-" + GetParam());
  {
    auto store = Open(dir);
    ServerEntry server;
    server.server_id = "s1";
    server.key = "board";
    server.address = "10.0.0.2:9091";
    server.info.set_arch("aarch64");
    server.info.set_cores(6);
    store->SaveServer(server);
    // The same server back under a new id replaces its old row; saved twice, it is one row.
    server.server_id = "s0";
    server.address = "10.0.0.2:9091";
    store->SaveServer(server);
    server.server_id = "s1";
    store->SaveServer(server);
    store->SaveServer(server);
    PendingRequest request;
    request.request_id = "r1";
    request.key = "board";
    request.user = "alice";
    request.priority = 3;
    request.seq = 42;
    request.deadline_ms = 123456;
    store->SaveRequest(request);
    request.request_id = "r2";
    store->SaveRequest(request);
    store->DeleteRequest("r2");
  }
  auto store = Open(dir);
  FleetState state(FleetSettings{});
  store->Load(&state);
  v1::FleetStatus status = state.Status(0);
  ASSERT_EQ(status.keys_size(), 1);
  EXPECT_EQ(status.keys(0), "board");
  ASSERT_EQ(status.servers_size(), 1);
  EXPECT_EQ(status.servers(0).server_id(), "s1");
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

INSTANTIATE_TEST_SUITE_P(Stores, StateStoreOnStoreTest, ::testing::Values("sqlite", "postgresql"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

// Trackers on one database keep their own devices: each loads only the rows of its name.
TEST(StateStoreTest, TrackersOnOneDatabaseKeepTheirStatesApart) {
  std::string why_not;
  if (!testing::PostgresAvailable(&why_not)) GTEST_SKIP() << why_not;
  const std::string db = testing::NewPostgresDatabase();
  ServerEntry server;
  server.server_id = "phone-1";
  server.key = "phone";
  server.address = "10.0.0.7:9091";
  StateStore("", db, "phones").SaveServer(server);
  FleetState phones(FleetSettings{}), boards(FleetSettings{});
  StateStore("", db, "phones").Load(&phones);
  StateStore("", db, "boards").Load(&boards);
  EXPECT_EQ(phones.Status(0).servers_size(), 1);
  EXPECT_EQ(boards.Status(0).servers_size(), 0);
}

TEST(StateStoreTest, ADatabaseNeedsATrackerNameAndAPostgresLocation) {
  try {
    StateStore store("", "postgresql://tessera@/db?host=/nowhere");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--state-db needs --tracker-name", 0), 0u) << e.what();
  }
  try {
    StateStore store("", "/var/lib/tracker.db", "lab");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(
        std::string(e.what()).rfind("--state-db '/var/lib/tracker.db': expected postgresql", 0), 0u)
        << e.what();
  }
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
