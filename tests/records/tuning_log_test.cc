#include "records/tuning_log.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>

#include "common/postgres.h"
#include "records/log_error.h"
#include "tests/testing/postgres_server.h"

namespace tessera {
namespace records {
namespace {

const char* kDense = "dense.x86(64,64,64,float32)";
const char* kZen3 = "llvm -mcpu=znver3";
const char* kSkylake = "llvm -mcpu=skylake-avx512";

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string path = std::string(dir ? dir : "/tmp") + "/" + name;
  std::remove(path.c_str());
  std::remove((path + "-wal").c_str());
  std::remove((path + "-shm").c_str());
  return path;
}

tuning::MeasureRecord Record(const std::string& workload, const std::string& target, int64_t config,
                             std::vector<double> costs, tuning::ErrorKind error = tuning::OK) {
  tuning::MeasureRecord r;
  r.set_workload_key(workload);
  r.set_target(target);
  r.set_device_key("local");
  r.set_config_index(config);
  tuning::KnobValue* knob = r.mutable_config()->add_knobs();
  knob->set_name("tile");
  knob->set_kind("sp");
  knob->add_ints(-1);
  knob->add_ints(config);
  for (double c : costs) r.add_costs(c);
  r.set_error_kind(error);
  if (error != tuning::OK) r.set_error_message("failed");
  r.set_timestamp(1.7e9 + config);
  r.set_tuner_version("test");
  return r;
}

// Each TEST_P runs on both stores: a SQLite file, and a database on a real PostgreSQL server
// started for this test binary (skipped where the server binaries are missing).
class TuningLogTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string why_not;
    if (GetParam() == "postgresql" && !testing::PostgresAvailable(&why_not))
      GTEST_SKIP() << why_not;
  }
  // A new, empty log's location; `name` tells SQLite files apart.
  std::string Location(const std::string& name) {
    return GetParam() == "postgresql" ? testing::NewPostgresDatabase() : TempPath(name);
  }
};

// Runs `each(0..n-1)` in `n` child processes at once and expects every one to succeed.
void InChildren(int n, const std::function<void(int)>& each) {
  std::vector<pid_t> children;
  for (int w = 0; w < n; ++w) {
    pid_t pid = fork();
    if (pid == 0) {
      try {
        each(w);
        _exit(0);
      } catch (...) {
        _exit(1);
      }
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
}

std::string OpenError(const std::string& path, bool create = true) {
  try {
    TuningLog::Open(path, create);
  } catch (const LogError& e) {
    return e.what();
  }
  return "no error";
}

TEST_P(TuningLogTest, BestIsPerWorkloadAndExactTarget) {
  auto log = TuningLog::Open(Location("best.db"));
  log->AppendBatch({Record(kDense, kZen3, 1, {3e-3, 3e-3}), Record(kDense, kZen3, 2, {1e-3}),
                    Record(kDense, kZen3, 3, {}, tuning::TIMEOUT),
                    Record(kDense, kSkylake, 4, {0.5e-3}),
                    Record("dense.x86(32,32,32,float32)", kZen3, 5, {1e-6})});
  auto best = log->Best(kDense, kZen3);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->config_index(), 2);
  EXPECT_EQ(log->Best(kDense, kSkylake)->config_index(), 4);
  // A record tuned for one CPU is never used for another.
  EXPECT_FALSE(log->Best(kDense, "llvm -mcpu=icelake-server").has_value());
  EXPECT_FALSE(log->Best(kDense, "llvm").has_value());
}

TEST_P(TuningLogTest, FailuresAreKeptButNeverBest) {
  auto log = TuningLog::Open(Location("failures.db"));
  log->Append(Record(kDense, kZen3, 1, {}, tuning::COMPILE_ERROR));
  log->Append(Record(kDense, kZen3, 2, {}, tuning::WRONG_ANSWER));
  EXPECT_EQ(log->Count(), 2);
  EXPECT_FALSE(log->Best(kDense, kZen3).has_value());
  auto stats = log->Stats();
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].failures, 2);
  EXPECT_TRUE(std::isinf(stats[0].best_cost));
  EXPECT_EQ(log->List({})[1].error_kind(), tuning::WRONG_ANSWER);
}

TEST_P(TuningLogTest, RecordsRoundTripAllFields) {
  auto log = TuningLog::Open(Location("fields.db"));
  tuning::MeasureRecord r = Record(kDense, kZen3, 42, {1.25e-3, 1.5e-3});
  r.set_device_key("rk3399");
  r.set_all_cost(0.75);
  r.set_template_version(3);
  r.set_in_model(true);
  r.set_cold_weights(true);
  log->Append(r);
  auto back = log->List({})[0];
  EXPECT_EQ(back.SerializeAsString(), r.SerializeAsString());
  EXPECT_DOUBLE_EQ(MeanCost(back), 1.375e-3);
}

// A workload's records timed with cold weights are its best however fast a warm one was: they
// were measured as the model reads its weights. Export and import keep the mark.
TEST_P(TuningLogTest, RecordsTimedWithColdWeightsAreTheBest) {
  auto log = TuningLog::Open(Location("cold.db"));
  tuning::MeasureRecord warm = Record(kDense, kZen3, 5, {1e-3});
  tuning::MeasureRecord cold = Record(kDense, kZen3, 6, {3e-3});
  cold.set_cold_weights(true);
  tuning::MeasureRecord slower_cold = Record(kDense, kZen3, 7, {4e-3});
  slower_cold.set_cold_weights(true);
  log->AppendBatch({warm, slower_cold, cold});
  auto best = log->Best(kDense, kZen3);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->config_index(), 6);
  EXPECT_TRUE(best->cold_weights());
  std::stringstream lines;
  log->ExportJsonLines(lines);
  EXPECT_NE(lines.str().find("\"cold_weights\":true"), std::string::npos) << lines.str();
  auto copy = TuningLog::Open(Location("cold_copy.db"));
  copy->ImportJsonLines(lines, "cold.jsonl");
  EXPECT_EQ(copy->Best(kDense, kZen3)->config_index(), 6);
}

// A record without a template version was written before versions: it counts as version 1, and
// is stored and read back as version 1; the version survives export and import.
TEST_P(TuningLogTest, ARecordWithoutATemplateVersionIsVersionOne) {
  tuning::MeasureRecord r = Record(kDense, kZen3, 5, {1e-3});
  EXPECT_EQ(r.template_version(), 0);
  EXPECT_EQ(TemplateVersionOf(r), 1);
  auto log = TuningLog::Open(Location("versions.db"));
  tuning::MeasureRecord newer = Record(kDense, kZen3, 6, {2e-3});
  newer.set_template_version(4);
  log->AppendBatch({r, newer});
  std::vector<tuning::MeasureRecord> back = log->List({});
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].template_version(), 1);
  EXPECT_EQ(back[1].template_version(), 4);
  std::stringstream lines;
  log->ExportJsonLines(lines);
  EXPECT_NE(lines.str().find("\"template_version\":4"), std::string::npos) << lines.str();
  auto copy = TuningLog::Open(Location("versions_copy.db"));
  copy->ImportJsonLines(lines, "versions.jsonl");
  EXPECT_EQ(copy->List({})[1].template_version(), 4);
}

// A record measured in a model survives export and import, and does not count as a measured
// config of the task (the tuner still measures it as a task).
TEST_P(TuningLogTest, RecordsMeasuredInAModelKeepTheirMark) {
  auto log = TuningLog::Open(Location("in_model.db"));
  tuning::MeasureRecord task_record = Record(kDense, kZen3, 5, {1e-3});
  tuning::MeasureRecord model_record = Record(kDense, kZen3, 6, {2e-3});
  model_record.set_in_model(true);
  log->AppendBatch({task_record, model_record});
  EXPECT_EQ(log->MeasuredConfigs(kDense, kZen3), std::set<int64_t>{5});
  std::stringstream lines;
  log->ExportJsonLines(lines);
  EXPECT_NE(lines.str().find("\"in_model\":true"), std::string::npos) << lines.str();
  auto copy = TuningLog::Open(Location("in_model_copy.db"));
  copy->ImportJsonLines(lines, "in_model.jsonl");
  ASSERT_EQ(copy->List({}).size(), 2u);
  EXPECT_FALSE(copy->List({})[0].in_model());
  EXPECT_TRUE(copy->List({})[1].in_model());
}

TEST_P(TuningLogTest, ListFiltersAndLimits) {
  auto log = TuningLog::Open(Location("list.db"));
  for (int i = 0; i < 10; ++i) log->Append(Record(kDense, i % 2 ? kZen3 : kSkylake, i, {1e-3}));
  log->Append(Record("conv2d_NCHWc.x86(1,64,56,56)", kZen3, 99, {2e-3}));
  RecordFilter by_target;
  by_target.target = kZen3;
  EXPECT_EQ(log->List(by_target).size(), 6u);
  RecordFilter by_template;
  by_template.template_name = "dense.x86";
  EXPECT_EQ(log->List(by_template).size(), 10u);
  by_template.limit = 3;
  auto newest = log->List(by_template);
  ASSERT_EQ(newest.size(), 3u);
  EXPECT_EQ(newest[0].config_index(), 7);
  EXPECT_EQ(newest[2].config_index(), 9);
  EXPECT_EQ(log->MeasuredConfigs(kDense, kZen3), (std::set<int64_t>{1, 3, 5, 7, 9}));
  EXPECT_EQ(TemplateOfWorkload("conv2d_NCHWc.x86(1,64,56,56)"), "conv2d_NCHWc.x86");
}

TEST_P(TuningLogTest, PersistsAcrossReopen) {
  std::string path = Location("reopen.db");
  TuningLog::Open(path)->Append(Record(kDense, kZen3, 7, {1e-3}));
  EXPECT_EQ(TuningLog::Open(path, /*create=*/false)->Best(kDense, kZen3)->config_index(), 7);
}

TEST_P(TuningLogTest, JsonLinesExportImportRoundTrip) {
  auto a = TuningLog::Open(Location("export.db"));
  a->AppendBatch({Record(kDense, kZen3, 1, {1e-3}), Record(kDense, kZen3, 2, {}, tuning::TIMEOUT)});
  std::stringstream lines;
  EXPECT_EQ(a->ExportJsonLines(lines), 2);
  EXPECT_NE(lines.str().find("\"workload_key\":\"dense.x86(64,64,64,float32)\""), std::string::npos)
      << lines.str();
  auto b = TuningLog::Open(Location("import.db"));
  std::stringstream in(lines.str());
  ImportResult result = b->ImportJsonLines(in, "records.jsonl");
  EXPECT_EQ(result.imported, 2);
  EXPECT_EQ(b->List({})[1].error_kind(), tuning::TIMEOUT);
  // Importing the same lines again adds nothing.
  std::stringstream again(lines.str());
  result = b->ImportJsonLines(again, "records.jsonl");
  EXPECT_EQ(result.imported, 0);
  EXPECT_EQ(result.duplicates, 2);
  EXPECT_EQ(b->Count(), 2);
}

TEST_P(TuningLogTest, MalformedJsonLineNamesTheLineAndImportsNothing) {
  auto log = TuningLog::Open(Location("bad_import.db"));
  std::stringstream good;
  auto other = TuningLog::Open(Location("bad_import_src.db"));
  other->Append(Record(kDense, kZen3, 1, {1e-3}));
  other->ExportJsonLines(good);
  std::stringstream in(good.str() + "\n{\"workload_key\": 12, oops\n");
  try {
    log->ImportJsonLines(in, "bad.jsonl");
    FAIL();
  } catch (const LogError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("bad.jsonl:3: not a tuning record: ", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("(nothing was imported)"), std::string::npos);
  }
  EXPECT_EQ(log->Count(), 0);
  std::stringstream missing("{\"config_index\": 3}\n");
  try {
    log->ImportJsonLines(missing, "partial.jsonl");
    FAIL();
  } catch (const LogError& e) {
    EXPECT_STREQ(e.what(),
                 "partial.jsonl:1: a tuning record needs workload_key and target (nothing was "
                 "imported)");
  }
}

TEST(SqliteLogTest, CorruptFileIsAClearError) {
  std::string path = TempPath("corrupt.db");
  std::ofstream(path) << "this is not a database, just some text that is long enough to matter"
                      << std::string(5000, 'x');
  EXPECT_EQ(OpenError(path).rfind(
                "tuning log '" + path + "' is corrupt or not a Tessera tuning log (", 0),
            0u)
      << OpenError(path);
}

TEST(SqliteLogTest, DamagedDatabaseIsAClearError) {
  std::string path = TempPath("damaged.db");
  {
    auto log = TuningLog::Open(path);
    for (int i = 0; i < 200; ++i) log->Append(Record(kDense, kZen3, i, {1e-3}));
  }
  // Overwrite the middle of the file with garbage.
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    std::string junk(8000, '\x5a');
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  std::string msg;
  try {
    auto log = TuningLog::Open(path);
    log->List({});
  } catch (const LogError& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find("tuning log '" + path + "'"), std::string::npos) << msg;
}

TEST(SqliteLogTest, NewerSchemaIsRefused) {
  std::string path = TempPath("newer.db");
  TuningLog::Open(path);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version = 9", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  EXPECT_EQ(OpenError(path), "tuning log '" + path +
                                 "' has schema version 9, newer than this Tessera understands "
                                 "(5); use a newer Tessera to read it");
}

TEST(SqliteLogTest, ForeignSqliteDatabaseIsRefused) {
  std::string path = TempPath("foreign.db");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t (x)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  EXPECT_EQ(OpenError(path), "'" + path + "' is a SQLite database but not a Tessera tuning log");
}

TEST(SqliteLogTest, MissingFileWithoutCreate) {
  std::string path = TempPath("missing.db");
  EXPECT_EQ(OpenError(path, /*create=*/false),
            "cannot open tuning log '" + path + "': unable to open database file");
}

TEST_P(TuningLogTest, ConcurrentWritersLoseNoRows) {
  std::string path = Location("concurrent.db");
  TuningLog::Open(path);
  const int kWriters = 4, kRows = 100;
  InChildren(kWriters, [&](int w) {
    auto log = TuningLog::Open(path);
    for (int i = 0; i < kRows; ++i) log->Append(Record(kDense, kZen3, w * 1000 + i, {1e-3}));
  });
  auto log = TuningLog::Open(path);
  EXPECT_EQ(log->Count(), kWriters * kRows);
  EXPECT_EQ(log->MeasuredConfigs(kDense, kZen3).size(), static_cast<size_t>(kWriters * kRows));
}

// Scan hands out every matching record once, in insertion order, in batches of the size asked.
TEST_P(TuningLogTest, ScanVisitsEveryRecordOnceInBatches) {
  auto log = TuningLog::Open(Location("scan.db"));
  std::vector<tuning::MeasureRecord> records;
  for (int i = 0; i < 25; ++i)
    records.push_back(Record(kDense, i % 5 ? kZen3 : kSkylake, i, {1e-3}));
  log->AppendBatch(records);
  std::vector<size_t> sizes;
  std::vector<int64_t> configs;
  RecordFilter zen3;
  zen3.target = kZen3;
  log->Scan(zen3, 7, [&](std::vector<tuning::MeasureRecord>&& batch) {
    sizes.push_back(batch.size());
    for (const auto& r : batch) configs.push_back(r.config_index());
  });
  EXPECT_EQ(sizes, (std::vector<size_t>{7, 7, 6}));
  ASSERT_EQ(configs.size(), 20u);
  EXPECT_TRUE(std::is_sorted(configs.begin(), configs.end()));
  std::stringstream all;
  EXPECT_EQ(log->ExportJsonLines(all), 25);
}

// Values at the edges survive the store: a config whose serialized bytes hold NULs, text that
// is not ASCII or holds quotes and placeholders, a cost of zero, a tiny cost, an infinite time.
TEST_P(TuningLogTest, OddValuesRoundTrip) {
  auto log = TuningLog::Open(Location("odd.db"));
  tuning::MeasureRecord r = Record(kDense, kZen3, 1, {0.0, 2.5e-300});
  r.mutable_config()->mutable_knobs(0)->set_name("tïlé ?");
  r.mutable_config()->mutable_knobs(0)->add_ints(0);
  r.set_error_message("ünïcødé 'quoted' ? $1 \"and\" \\ back");
  r.set_device_key("board?with?marks");
  r.set_template_version(2);
  tuning::MeasureRecord late = Record(kDense, kZen3, 2, {1e-3});
  late.set_timestamp(std::numeric_limits<double>::infinity());
  log->AppendBatch({r, late});
  std::vector<tuning::MeasureRecord> back = log->List({});
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].SerializeAsString(), r.SerializeAsString());
  EXPECT_TRUE(std::isinf(back[1].timestamp()));
  EXPECT_EQ(log->Best(kDense, kZen3)->config_index(), 1);
}

// `tessera log copy`: records move between stores in both directions without loss, and a
// second copy adds nothing.
TEST_P(TuningLogTest, CopyBetweenStoresLosesAndDuplicatesNothing) {
  auto from = TuningLog::Open(Location("copy_from.db"));
  std::vector<tuning::MeasureRecord> records;
  for (int i = 0; i < 60; ++i) {
    records.push_back(Record(i % 3 ? kDense : "conv2d_NCHWc.x86(1,64,56,56)", kZen3, i,
                             i % 7 ? std::vector<double>{1e-3 * i} : std::vector<double>{},
                             i % 7 ? tuning::OK : tuning::RUNTIME_ERROR));
  }
  from->AppendBatch(records);
  for (const std::string& other :
       {TempPath("copy_to.db"),
        GetParam() == "postgresql" ? testing::NewPostgresDatabase() : TempPath("copy_to2.db")}) {
    auto to = TuningLog::Open(other);
    to->Append(records[5]);  // already there: not copied again
    ImportResult first = CopyRecords(*from, *to, /*batch=*/16);
    EXPECT_EQ(first.imported, 59);
    EXPECT_EQ(first.duplicates, 1);
    ImportResult again = CopyRecords(*from, *to, 16);
    EXPECT_EQ(again.imported, 0);
    EXPECT_EQ(again.duplicates, 60);
    EXPECT_EQ(to->Count(), 60);
    EXPECT_EQ(to->Best(kDense, kZen3)->SerializeAsString(),
              from->Best(kDense, kZen3)->SerializeAsString());
    // And back: the source gains nothing.
    EXPECT_EQ(CopyRecords(*to, *from).imported, 0);
  }
}

class PostgresLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why_not;
    if (!testing::PostgresAvailable(&why_not)) GTEST_SKIP() << why_not;
  }
  static void Exec(const std::string& uri, const std::string& sql) {
    PostgresConnection db(
        uri, [](const PostgresFailure& f) { throw std::runtime_error(f.what + ": " + f.detail); });
    db.Exec(sql);
  }
};

TEST_F(PostgresLogTest, APasswordInTheLocationIsRefused) {
  EXPECT_EQ(OpenError("postgresql://tessera:secret@localhost/logs"),
            "cannot open tuning log 'postgresql://…': the location holds a password; give it in "
            "PGPASSWORD or a pgpass file (PGPASSFILE, default ~/.pgpass) instead");
}

TEST_F(PostgresLogTest, AServerThatIsNotThereIsAClearError) {
  const std::string uri = "postgresql:///logs?host=/nonexistent-socket-dir&user=tessera";
  const std::string msg = OpenError(uri);
  EXPECT_EQ(msg.rfind("cannot open tuning log '" + uri + "': ", 0), 0u) << msg;
  EXPECT_NE(msg.find("/nonexistent-socket-dir"), std::string::npos) << msg;
}

TEST_F(PostgresLogTest, AnEmptyDatabaseWithoutCreate) {
  const std::string uri = testing::NewPostgresDatabase();
  EXPECT_EQ(OpenError(uri, /*create=*/false),
            "'" + uri +
                "' holds no Tessera tuning log yet (tessera tune or tessera log import "
                "creates one)");
  TuningLog::Open(uri);
  EXPECT_EQ(OpenError(uri, /*create=*/false), "no error");
}

TEST_F(PostgresLogTest, NewerSchemaIsRefused) {
  const std::string uri = testing::NewPostgresDatabase();
  TuningLog::Open(uri);
  Exec(uri, "UPDATE tessera_log SET value = '9' WHERE key = 'schema_version'");
  EXPECT_EQ(OpenError(uri), "tuning log '" + uri +
                                "' has schema version 9, newer than this Tessera understands "
                                "(5); use a newer Tessera to read it");
}

TEST_F(PostgresLogTest, ForeignRecordsTableIsRefused) {
  const std::string uri = testing::NewPostgresDatabase();
  Exec(uri, "CREATE TABLE records (x INTEGER)");
  EXPECT_EQ(OpenError(uri), "'" + uri +
                                "' has a 'records' table that is not a Tessera tuning log's; use "
                                "another database");
}

// A log outlives a server restart: the call that finds the connection broken fails and says so;
// the next one connects again and nothing written before is lost.
TEST_F(PostgresLogTest, ALogReconnectsAfterTheServerRestarts) {
  const std::string uri = testing::NewPostgresDatabase();
  auto log = TuningLog::Open(uri);
  log->Append(Record(kDense, kZen3, 1, {1e-3}));
  testing::RestartPostgres();
  try {
    log->Append(Record(kDense, kZen3, 2, {1e-3}));
  } catch (const LogError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("tuning log '" + uri + "': ", 0), 0u) << e.what();
  }
  log->Append(Record(kDense, kZen3, 3, {1e-3}));
  std::set<int64_t> configs = log->MeasuredConfigs(kDense, kZen3);
  EXPECT_TRUE(configs.count(1) && configs.count(3)) << configs.size();
}

// Opening at once from many processes: one creates the tables, the others wait and use them.
TEST_F(PostgresLogTest, ConcurrentFirstOpensCreateTheSchemaOnce) {
  const std::string uri = testing::NewPostgresDatabase();
  InChildren(6, [&](int w) { TuningLog::Open(uri)->Append(Record(kDense, kZen3, w, {1e-3})); });
  EXPECT_EQ(TuningLog::Open(uri)->Count(), 6);
}

INSTANTIATE_TEST_SUITE_P(Stores, TuningLogTest, ::testing::Values("sqlite", "postgresql"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace records
}  // namespace tessera
