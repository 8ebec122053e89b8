#include "tracker/state_writer.h"

#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>

#include "common/file.h"
#include "common/log.h"
#include "common/sqlite.h"

namespace tessera {
namespace tracker {
namespace {

PendingRequest Request(const std::string& id) {
  PendingRequest request;
  request.request_id = id;
  request.key = "board";
  request.user = "alice";
  return request;
}

// What a tracker restarted on `dir` would load.
FleetState Load(const std::string& dir) {
  StateStore store(dir);
  FleetState state(FleetSettings{});
  store.Load(&state);
  return state;
}

TEST(StateWriterTest, ChangesAreSavedInTheOrderTheyCame) {
  const TempDir temp("writer-order");
  const std::string& dir = temp.path();
  StateWriter writer(std::make_unique<StateStore>(dir));
  ServerEntry server;
  server.server_id = "s1";
  server.key = "board";
  server.address = "10.0.0.2:9091";
  writer.Add(StateChange::SaveServer(server));
  writer.Add(StateChange::SaveRequest(Request("r1")));
  writer.Add(StateChange::SaveRequest(Request("r2")));
  writer.Add(StateChange::DeleteRequest("r1"));
  writer.Add(StateChange::DeleteRequest("r2"));
  writer.Add(StateChange::SaveRequest(Request("r2")));  // the same id queued again
  writer.Flush();
  FleetState state = Load(dir);
  EXPECT_EQ(state.servers().count("s1"), 1u);
  ASSERT_EQ(state.queue().size(), 1u);
  EXPECT_EQ(state.queue().count("r2"), 1u);
}

TEST(StateWriterTest, StoppingSavesWhatIsPending) {
  const TempDir temp("writer-stop");
  const std::string& dir = temp.path();
  {
    StateWriter writer(std::make_unique<StateStore>(dir));
    for (int i = 0; i < 100; ++i) writer.Add(StateChange::SaveRequest(Request(std::to_string(i))));
  }
  EXPECT_EQ(Load(dir).queue().size(), 100u);
}

// A disk that fails under the tracker is logged once; the tracker goes on (Flush returns).
TEST(StateWriterTest, AFailingStoreIsLoggedOnceAndNeverBlocks) {
  const TempDir temp("writer-fail");
  const std::string& dir = temp.path();
  std::ostringstream log;
  SetLogStreamForTesting(&log);
  {
    StateWriter writer(std::make_unique<StateStore>(dir));
    {
      Database db(dir + "/tracker.db", /*create=*/false, [](const SqliteFailure& failure) -> void {
        throw std::runtime_error(failure.detail);
      });
      db.Exec("DROP TABLE requests");
    }
    writer.Add(StateChange::SaveRequest(Request("r1")));
    writer.Flush();
    writer.Add(StateChange::SaveRequest(Request("r2")));
    writer.Flush();
  }
  SetLogStreamForTesting(nullptr);
  const std::string text = log.str();
  const size_t first = text.find("tracker state not saved");
  ASSERT_NE(first, std::string::npos) << text;
  EXPECT_EQ(text.find("tracker state not saved", first + 1), std::string::npos) << text;
  EXPECT_NE(text.find("requests"), std::string::npos) << text;  // sqlite names the table
}

}  // namespace
}  // namespace tracker
}  // namespace tessera
