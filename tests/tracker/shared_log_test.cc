#include "tracker/shared_log.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "common/file.h"
#include "tests/testing/postgres_server.h"

namespace tessera::tracker {
namespace {

bool FileExists(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0;
}

tuning::MeasureRecord Record(int64_t config_index, double cost) {
  tuning::MeasureRecord record;
  record.set_workload_key("dense.x86(64,64,64,float32)");
  record.set_target("llvm");
  record.set_config_index(config_index);
  record.add_costs(cost);
  return record;
}

TEST(SharedLogTest, KeepsRecordsInTheStateDirectoryAcrossReopens) {
  TempDir state("shared-log-test");
  {
    SharedLog log(state.path());
    EXPECT_EQ(log.path(), state.path() + "/tuning.db");
    log.With([](records::TuningLog& l) { l.Append(Record(1, 2e-3)); });
  }
  SharedLog reopened(state.path());
  EXPECT_EQ(reopened.With([](records::TuningLog& l) { return l.Count(); }), 1);
}

TEST(SharedLogTest, WithoutAStateDirectoryTheLogIsPrivateAndTemporary) {
  std::string path;
  {
    SharedLog log("");
    path = log.path();
    log.With([](records::TuningLog& l) { l.Append(Record(1, 2e-3)); });
    EXPECT_TRUE(FileExists(path));
  }
  EXPECT_FALSE(FileExists(path));
}

TEST(SharedLogTest, HandlersOnManyThreadsLoseNoRecord) {
  SharedLog log("");
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&log, t] {
      for (int i = 0; i < 25; ++i) {
        log.With([&](records::TuningLog& l) { l.Append(Record(t * 100 + i, 1e-3 * (i + 1))); });
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(log.With([](records::TuningLog& l) { return l.Count(); }), 100);
  auto best =
      log.With([](records::TuningLog& l) { return l.Best("dense.x86(64,64,64,float32)", "llvm"); });
  ASSERT_TRUE(best.has_value());
  EXPECT_DOUBLE_EQ(best->costs(0), 1e-3);
}

// Two trackers started with one --log-db serve each other's records, and their handlers on many
// threads lose none.
TEST(SharedLogTest, TwoTrackersOnOnePostgresDatabaseShareTheirRecords) {
  std::string why_not;
  if (!testing::PostgresAvailable(&why_not)) GTEST_SKIP() << why_not;
  const std::string database = testing::NewPostgresDatabase();
  SharedLog first("", database);
  SharedLog second("", database);
  EXPECT_EQ(first.path(), database);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      SharedLog& log = t % 2 ? second : first;
      for (int i = 0; i < 25; ++i) {
        log.With([&](records::TuningLog& l) { l.Append(Record(t * 100 + i, 1e-3 * (i + 2))); });
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  first.With([](records::TuningLog& l) { l.Append(Record(999, 1e-4)); });
  EXPECT_EQ(second.With([](records::TuningLog& l) { return l.Count(); }), 101);
  auto best = second.With(
      [](records::TuningLog& l) { return l.Best("dense.x86(64,64,64,float32)", "llvm"); });
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->config_index(), 999);
}

// On PostgreSQL, handlers read side by side: two calls are inside `With` at the same moment.
TEST(SharedLogTest, OnPostgresTwoCallsUseTheLogAtOnce) {
  std::string why_not;
  if (!testing::PostgresAvailable(&why_not)) GTEST_SKIP() << why_not;
  SharedLog log("", testing::NewPostgresDatabase());
  std::mutex mutex;
  std::condition_variable changed;
  int inside = 0;
  bool both = false;
  auto call = [&] {
    log.With([&](records::TuningLog& l) {
      std::unique_lock<std::mutex> lock(mutex);
      ++inside;
      changed.notify_all();
      both = changed.wait_for(lock, std::chrono::seconds(10), [&] { return inside == 2; }) || both;
      return l.Count();
    });
  };
  std::thread first(call), second(call);
  first.join();
  second.join();
  EXPECT_TRUE(both);
}

}  // namespace
}  // namespace tessera::tracker
