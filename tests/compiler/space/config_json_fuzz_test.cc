// Fuzzes the config parser (ConfigFromJson): malformed JSON and configs that do not fit the
// space are UserErrors; what it accepts writes back to the same configuration.
#include <gtest/gtest.h>

#include "compiler/space/config_json.h"
#include "compiler/support/error.h"
#include "tests/testing/fuzz.h"

namespace tessera {
namespace space {
namespace {

TEST(ConfigJsonFuzzTest, OnlyUserErrorsAndAcceptedConfigsRoundTrip) {
  ConfigSpace space;
  space.DefineSplit("tile_x", 32, {SplitPolicy::kFactors, 3, 0});
  space.DefineReorder("order", 3);
  space.DefineAnnotate("ann", 2, {Annotation::kNone, Annotation::kUnroll, Annotation::kVectorize});
  space.DefineKnob("unroll", {0, 4, 16});
  testing::FuzzOptions options;
  options.dictionary = {"{",      "}",          "[",          "]",      "\"",     ",",
                        ":",      "\"index\"",  "\"entity\"", "\"sp\"", "\"re\"", "\"an\"",
                        "\"ot\"", "\"tile_x\"", "\\u0000",    "\\",     "null",   "1e999"};
  testing::Fuzz(
      testing::LoadCorpus("tests/compiler/space/corpus/config_json"),
      [&](const std::string& json) {
        try {
          ConfigEntity config = ConfigFromJson(space, json);
          EXPECT_EQ(ConfigFromJson(space, ConfigToJson(config)).index(), config.index())
              << testing::Escaped(json);
        } catch (const UserError&) {
        }
      },
      options);
}

}  // namespace
}  // namespace space
}  // namespace tessera
