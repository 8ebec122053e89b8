// Tuning logs written before the config was a message (schema 1: `config_json` text) load, and
// their configs come back as `tessera.tuning.Config` messages; logs written before template
// versions (schemas 1 and 2) load with every record at template version 1.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "records/tuning_log.h"

namespace tessera {
namespace records {
namespace {

const char* kKey = "dense.x86(16,32,8,float32)";
const std::string kTestdata = "tests/records/testdata/";

std::string Scratch(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

// The first record of the fixture: config 251, tile_y=sp[-1,4,4] ... unroll_k=ot(0).
void ExpectConfig251(const tuning::MeasureRecord& r) {
  EXPECT_TRUE(r.config_json().empty());
  ASSERT_EQ(r.config().knobs_size(), 4);
  EXPECT_EQ(r.config().knobs(0).name(), "tile_y");
  EXPECT_EQ(r.config().knobs(0).kind(), "sp");
  EXPECT_EQ(
      std::vector<int64_t>(r.config().knobs(0).ints().begin(), r.config().knobs(0).ints().end()),
      (std::vector<int64_t>{-1, 4, 4}));
  EXPECT_EQ(r.config().knobs(3).name(), "unroll_k");
  EXPECT_EQ(r.config().knobs(3).kind(), "ot");
  EXPECT_EQ(r.config().knobs(3).ints_size(), 1);
}

TEST(OldLogTest, ASchemaOneLogIsMigratedAndItsConfigsRead) {
  const std::string path = Scratch("v1.db");
  std::filesystem::copy_file(kTestdata + "tuning_log_v1.db", path,
                             std::filesystem::copy_options::overwrite_existing);
  auto log = TuningLog::Open(path, /*create=*/false);
  RecordFilter filter;
  filter.workload_key = kKey;
  std::vector<tuning::MeasureRecord> records = log->List(filter);
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(records[0].config_index(), 251);
  EXPECT_EQ(records[0].template_version(), 1);  // written before versions
  ExpectConfig251(records[0]);
  auto best = log->Best(kKey, "llvm");
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->config_index(), 251);
  // New records go beside the old ones in the migrated file.
  tuning::MeasureRecord fresh = records[1];
  fresh.set_timestamp(fresh.timestamp() + 1);
  log->Append(fresh);
  EXPECT_EQ(log->Count(), 5);
  EXPECT_EQ(log->List(filter).back().config().SerializeAsString(),
            fresh.config().SerializeAsString());
}

// A schema-2 log (before the template_version column) is migrated in place: its rows count as
// template version 1, and new rows keep their own version.
TEST(OldLogTest, ASchemaTwoLogGetsTemplateVersionOne) {
  const std::string path = Scratch("v2.db");
  std::filesystem::remove(path);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const char* schema_two = R"sql(
    CREATE TABLE records (
      id INTEGER PRIMARY KEY, workload_key TEXT NOT NULL, template TEXT NOT NULL,
      target TEXT NOT NULL, device_key TEXT NOT NULL, config_index INTEGER NOT NULL,
      config_json TEXT NOT NULL, costs TEXT NOT NULL, mean_cost REAL,
      error_kind INTEGER NOT NULL, error_message TEXT NOT NULL, timestamp REAL NOT NULL,
      tuner_version TEXT NOT NULL, all_cost REAL NOT NULL, config BLOB);
    CREATE TABLE tessera_log (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO tessera_log VALUES ('format', 'tessera tuning log');
    INSERT INTO records VALUES (1, 'dense.x86(16,32,8,float32)', 'dense.x86', 'llvm', 'local', 7,
      '', '[0.001]', 0.001, 0, '', 1.7e9, 'tessera-tuner 0.1', 0.5, NULL);
    PRAGMA user_version = 2;
  )sql";
  ASSERT_EQ(sqlite3_exec(db, schema_two, nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  auto log = TuningLog::Open(path, /*create=*/false);
  std::vector<tuning::MeasureRecord> records = log->List({});
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].config_index(), 7);
  EXPECT_EQ(records[0].template_version(), 1);
  tuning::MeasureRecord fresh = records[0];
  fresh.set_timestamp(fresh.timestamp() + 1);
  fresh.set_template_version(2);
  log->Append(fresh);
  EXPECT_EQ(log->List({}).back().template_version(), 2);
  EXPECT_EQ(log->Best(kKey, "llvm")->template_version(), 1);
  log.reset();
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* q = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &q, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(q), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(q, 0), kTuningLogSchemaVersion);
  sqlite3_finalize(q);
  sqlite3_close(db);
}

TEST(OldLogTest, OldJsonLinesImportWithTheirConfigs) {
  auto log = TuningLog::Open(Scratch("import.db"));
  std::ifstream in(kTestdata + "tuning_log_v1.jsonl");
  ASSERT_TRUE(in.good());
  ImportResult result = log->ImportJsonLines(in, "tuning_log_v1.jsonl");
  EXPECT_EQ(result.imported, 4);
  std::vector<tuning::MeasureRecord> records = log->List({});
  ASSERT_EQ(records.size(), 4u);
  ExpectConfig251(records[0]);
  // The export of today writes the message and no JSON text.
  std::string line = RecordToJson(records[0]);
  EXPECT_NE(line.find("\"config\":{\"knobs\":[{\"name\":\"tile_y\",\"kind\":\"sp\""),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("\"config_json\":\"\""), std::string::npos) << line;
}

TEST(OldLogTest, UnreadableOldConfigTextIsKeptForItsReadersToReject) {
  auto log = TuningLog::Open(Scratch("broken.db"));
  tuning::MeasureRecord r;
  r.set_workload_key(kKey);
  r.set_target("llvm");
  r.set_config_json("{not json");
  log->Append(r);
  std::vector<tuning::MeasureRecord> records = log->List({});
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].config_json(), "{not json");
  EXPECT_FALSE(records[0].has_config());
}

}  // namespace
}  // namespace records
}  // namespace tessera
