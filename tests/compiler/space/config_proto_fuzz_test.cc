// Fuzzes the config reader of tuning records (a `tessera.tuning.Config` in JSON, then
// ConfigFromProto): configs that do not fit the space are UserErrors, and what it accepts writes
// back to the same configuration.
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include "compiler/space/config_proto.h"
#include "compiler/support/error.h"
#include "tests/testing/fuzz.h"

namespace tessera {
namespace space {
namespace {

TEST(ConfigProtoFuzzTest, OnlyUserErrorsAndAcceptedConfigsRoundTrip) {
  ConfigSpace space;
  space.DefineSplit("tile_x", 32, {SplitPolicy::kFactors, 3, 0});
  space.DefineReorder("order", 3);
  space.DefineAnnotate("ann", 2, {Annotation::kNone, Annotation::kUnroll, Annotation::kVectorize});
  space.DefineKnob("unroll", {0, 4, 16});
  testing::FuzzOptions options;
  options.dictionary = {"{",      "}",         "[",        "]",        "\"",       ",",
                        ":",      "\"knobs\"", "\"name\"", "\"kind\"", "\"ints\"", "\"names\"",
                        "\"sp\"", "\"re\"",    "\"an\"",   "\"ot\"",   "\"vec\"",  "-1"};
  testing::Fuzz(
      testing::LoadCorpus("tests/compiler/space/corpus/config_proto"),
      [&](const std::string& json) {
        tuning::Config message;
        if (!google::protobuf::util::JsonStringToMessage(json, &message).ok()) return;
        try {
          ConfigEntity config = ConfigFromProto(space, message);
          EXPECT_EQ(ConfigFromProto(space, ConfigToProto(config)).index(), config.index())
              << testing::Escaped(json);
        } catch (const UserError&) {
        }
      },
      options);
}

}  // namespace
}  // namespace space
}  // namespace tessera
