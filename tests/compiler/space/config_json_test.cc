#include "compiler/space/config_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/support/error.h"

namespace tessera {
namespace space {
namespace {

using ::testing::HasSubstr;

ConfigSpace MakeSpace() {
  ConfigSpace space;
  space.DefineSplit("tile_x", 32, {SplitPolicy::kFactors, 3, 0});
  space.DefineReorder("order", 3);
  space.DefineAnnotate("ann", 2, {Annotation::kNone, Annotation::kUnroll, Annotation::kVectorize});
  space.DefineKnob("unroll", {0, 4, 16});
  return space;
}

std::string ErrorOf(const ConfigSpace& space, const std::string& json) {
  try {
    ConfigFromJson(space, json);
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ConfigJsonTest, WritesTheDocumentedForm) {
  ConfigSpace space = MakeSpace();
  ConfigEntity c = space.FromChoices({4, 1, 5, 2});
  EXPECT_EQ(ConfigToJson(c),
            "{\"index\":" + std::to_string(c.index()) +
                ",\"entity\":[[\"tile_x\",\"sp\",[-1,1,16]],[\"order\",\"re\",[0,2,1]],"
                "[\"ann\",\"an\",[\"unroll\",\"vec\"]],[\"unroll\",\"ot\",16]]}");
}

TEST(ConfigJsonTest, EveryConfigRoundTrips) {
  ConfigSpace space = MakeSpace();
  for (int64_t i = 0; i < space.size(); ++i) {
    ConfigEntity c = space.Get(i);
    ConfigEntity back = ConfigFromJson(space, ConfigToJson(c));
    ASSERT_EQ(back.index(), i);
    ASSERT_EQ(back, c);
  }
}

TEST(ConfigJsonTest, SettingsParseWithoutASpace) {
  ConfigSpace space = MakeSpace();
  auto settings = ParseConfigSettings(ConfigToJson(space.FromChoices({4, 1, 5, 2})));
  ASSERT_EQ(settings.size(), 4u);
  EXPECT_EQ(settings[0].name, "tile_x");
  EXPECT_EQ(settings[0].kind, KnobKind::kSplit);
  EXPECT_EQ(settings[0].value, (std::vector<int64_t>{-1, 1, 16}));
  EXPECT_EQ(settings[2].value, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(settings[3].value, (std::vector<int64_t>{16}));
}

TEST(ConfigJsonTest, TheEntityListNotTheIndexIsAuthoritative) {
  ConfigSpace space = MakeSpace();
  ConfigEntity c = ConfigFromJson(
      space,
      " { \"entity\" : [[\"unroll\",\"ot\",4],[\"order\",\"re\",[2,1,0]],"
      "[\"tile_x\",\"sp\",[-1,2,2]],[\"ann\",\"an\",[\"none\",\"none\"]]], \"index\": 999999 }");
  EXPECT_EQ(c.Value("unroll"), 4);
  EXPECT_EQ(c.Split("tile_x"), (std::vector<int64_t>{-1, 2, 2}));
  EXPECT_EQ(space.Get(c.index()), c);
}

TEST(ConfigJsonTest, BadInputIsAUserErrorSayingWhatAndWhere) {
  ConfigSpace space = MakeSpace();
  EXPECT_THAT(ErrorOf(space, "{\"entity\":[[\"tile_y\",\"sp\",[-1,4]]]}"),
              HasSubstr("unknown knob 'tile_y'"));
  EXPECT_THAT(ErrorOf(space,
                      "{\"entity\":[[\"tile_x\",\"sp\",[-1,3,1]],[\"order\",\"re\","
                      "[0,1,2]],[\"ann\",\"an\",[\"none\",\"none\"]],[\"unroll\",\"ot\",0]]}"),
              HasSubstr("value sp[-1,3,1] is not a choice of split knob 'tile_x'"));
  EXPECT_THAT(ErrorOf(space, "{\"entity\":[[\"tile_x\",\"sp\",[-1,1,1]]]}"),
              HasSubstr("config gives no value for knob 'order'"));
  EXPECT_THAT(
      ErrorOf(space, "{\"entity\":[[\"unroll\",\"re\",[0]]]}"),
      HasSubstr("knob 'unroll' is a knob knob in this space, but the config has a reorder"));
  EXPECT_THAT(ErrorOf(space, "{\"entity\":[[\"unroll\",\"xx\",0]]}"),
              HasSubstr("unknown kind tag 'xx'"));
  EXPECT_THAT(ErrorOf(space, "{\"entity\":[[\"ann\",\"an\",[\"none\",\"vectorise\"]]]}"),
              HasSubstr("unknown annotation 'vectorise'"));
  EXPECT_THAT(ErrorOf(space, "{\"entity\":[[\"unroll\",\"ot\",1.5]]}"),
              HasSubstr("malformed config JSON at offset 27: only integers are allowed here"));
  EXPECT_THAT(ErrorOf(space, "{\"entity\":[}"), HasSubstr("malformed config JSON at offset 11"));
  EXPECT_THAT(ErrorOf(space, "[1,2]"), HasSubstr("config JSON must be an object"));
  EXPECT_THAT(ErrorOf(space, "{}"), HasSubstr("config JSON has no \"entity\" list"));
  EXPECT_THAT(ErrorOf(space, "{\"entity\":[[\"unroll\",\"ot\",0],[\"unroll\",\"ot\",4]]}"),
              HasSubstr("knob 'unroll' appears twice"));
  EXPECT_THAT(ErrorOf(space, std::string(200, '[')), HasSubstr("nesting is too deep"));
}

}  // namespace
}  // namespace space
}  // namespace tessera
