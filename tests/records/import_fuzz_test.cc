// Fuzzes the tuning log's JSON-lines importer: a malformed line is a LogError naming the source
// and imports nothing; an accepted import adds exactly the records it reports.
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>

#include "records/log_error.h"
#include "records/tuning_log.h"
#include "tests/testing/fuzz.h"

namespace tessera {
namespace {

TEST(ImportFuzzTest, MalformedInputIsALogErrorAndImportsNothing) {
  const char* dir = std::getenv("TEST_TMPDIR");
  auto log = records::TuningLog::Open(std::string(dir ? dir : "/tmp") + "/import_fuzz.db");
  testing::FuzzOptions options;
  options.dictionary = {"\n",
                        "{",
                        "}",
                        "[",
                        "]",
                        "\"",
                        ":",
                        ",",
                        "\"costs\"",
                        "\"target\"",
                        "\"errorKind\"",
                        "\"TIMEOUT\"",
                        "\"configIndex\"",
                        "\"workloadKey\"",
                        "null",
                        "1e308",
                        "-0",
                        "\\u0000",
                        "\"NaN\""};
  testing::Fuzz(
      testing::LoadCorpus("tests/records/corpus/import"),
      [&](const std::string& text) {
        const int64_t before = log->Count();
        std::istringstream in(text);
        try {
          records::ImportResult result = log->ImportJsonLines(in, "fuzz.jsonl");
          EXPECT_EQ(log->Count(), before + result.imported) << testing::Escaped(text);
        } catch (const records::LogError& e) {
          EXPECT_EQ(log->Count(), before) << "a refused import imported records";
          EXPECT_NE(std::string(e.what()).find("fuzz.jsonl"), std::string::npos) << e.what();
        }
      },
      options);
}

}  // namespace
}  // namespace tessera
