// Fuzzes the tuning log's JSON-lines importer: a malformed line is a LogError naming the source
// and imports nothing; an accepted import adds exactly the records it reports.
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>

#include "tests/testing/fuzz.h"
#include "tuner/log/log_error.h"
#include "tuner/log/tuning_log.h"

namespace tessera {
namespace {

TEST(ImportFuzzTest, MalformedInputIsALogErrorAndImportsNothing) {
  const char* dir = std::getenv("TEST_TMPDIR");
  auto log = tuner::TuningLog::Open(std::string(dir ? dir : "/tmp") + "/import_fuzz.db");
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
      testing::LoadCorpus("tests/tuner/log/corpus/import"),
      [&](const std::string& text) {
        const int64_t before = log->Count();
        std::istringstream in(text);
        try {
          tuner::ImportResult result = log->ImportJsonLines(in, "fuzz.jsonl");
          EXPECT_EQ(log->Count(), before + result.imported) << testing::Escaped(text);
        } catch (const tuner::LogError& e) {
          EXPECT_EQ(log->Count(), before) << "a refused import imported records";
          EXPECT_NE(std::string(e.what()).find("fuzz.jsonl"), std::string::npos) << e.what();
        }
      },
      options);
}

}  // namespace
}  // namespace tessera
