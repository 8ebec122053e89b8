// Tuning logs written before the config was a message (schema 1: `config_json` text) load, and
// their configs come back as `tessera.tuning.Config` messages.
#include <gtest/gtest.h>

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
