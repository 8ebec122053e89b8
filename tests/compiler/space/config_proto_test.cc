#include "compiler/space/config_proto.h"

#include <gmock/gmock.h>
#include <google/protobuf/text_format.h>
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

tuning::Config Parse(const std::string& text) {
  tuning::Config config;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &config)) << text;
  return config;
}

std::string ErrorOf(const ConfigSpace& space, const std::string& text) {
  try {
    ConfigFromProto(space, Parse(text));
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ConfigProtoTest, OneKnobValuePerKnob) {
  ConfigEntity c = MakeSpace().FromChoices({4, 1, 5, 2});
  tuning::Config config = ConfigToProto(c);
  std::string text;
  google::protobuf::TextFormat::Printer printer;
  printer.SetSingleLineMode(true);
  printer.PrintToString(config, &text);
  EXPECT_EQ(text,
            "knobs { name: \"tile_x\" kind: \"sp\" ints: -1 ints: 1 ints: 16 } "
            "knobs { name: \"order\" kind: \"re\" ints: 0 ints: 2 ints: 1 } "
            "knobs { name: \"ann\" kind: \"an\" names: \"unroll\" names: \"vec\" } "
            "knobs { name: \"unroll\" kind: \"ot\" ints: 16 } ");
}

TEST(ConfigProtoTest, EveryConfigRoundTrips) {
  ConfigSpace space = MakeSpace();
  for (int64_t i = 0; i < space.size(); ++i) {
    ConfigEntity c = space.Get(i);
    ConfigEntity back = ConfigFromProto(space, ConfigToProto(c));
    ASSERT_EQ(back.index(), i);
    ASSERT_EQ(back, c);
  }
}

TEST(ConfigProtoTest, SettingsReadWithoutASpace) {
  ConfigSpace space = MakeSpace();
  auto settings = ConfigSettings(ConfigToProto(space.FromChoices({4, 1, 5, 2})));
  ASSERT_EQ(settings.size(), 4u);
  EXPECT_EQ(settings[0].name, "tile_x");
  EXPECT_EQ(settings[0].kind, KnobKind::kSplit);
  EXPECT_EQ(settings[0].value, (std::vector<int64_t>{-1, 1, 16}));
  EXPECT_EQ(settings[2].value, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(settings[3].value, (std::vector<int64_t>{16}));
}

TEST(ConfigProtoTest, KnobOrderDoesNotMatter) {
  ConfigSpace space = MakeSpace();
  ConfigEntity c =
      ConfigFromProto(space, Parse("knobs { name: 'unroll' kind: 'ot' ints: 4 } "
                                   "knobs { name: 'order' kind: 're' ints: [2, 1, 0] } "
                                   "knobs { name: 'tile_x' kind: 'sp' ints: [-1, 2, 2] } "
                                   "knobs { name: 'ann' kind: 'an' names: ['none', 'none'] }"));
  EXPECT_EQ(c.Value("unroll"), 4);
  EXPECT_EQ(c.Split("tile_x"), (std::vector<int64_t>{-1, 2, 2}));
  EXPECT_EQ(space.Get(c.index()), c);
}

// A knob added to a template after records were written: old records stand for its value when
// absent, keep their index, and a knob without one still has to be named.
TEST(ConfigProtoTest, AKnobAddedLaterTakesItsValueWhenAbsent) {
  ConfigSpace before = MakeSpace();
  ConfigSpace after = MakeSpace();
  after.DefineKnob("nest", {0, 1}, /*when_absent=*/0);
  ConfigEntity old = before.FromChoices({4, 1, 5, 2});
  ConfigEntity read = ConfigFromProto(after, ConfigToProto(old));
  EXPECT_EQ(read.Value("nest"), 0);
  EXPECT_EQ(read.Value("unroll"), 16);
  EXPECT_EQ(read.index(), old.index());
  EXPECT_EQ(ConfigFromProto(after, ConfigToProto(after.FromChoices({4, 1, 5, 2, 1}))).Value("nest"),
            1);
  ConfigSpace strict = MakeSpace();
  strict.DefineKnob("nest", {0, 1});
  EXPECT_THAT(ErrorOf(strict,
                      "knobs { name: 'tile_x' kind: 'sp' ints: [-1, 1, 1] } "
                      "knobs { name: 'order' kind: 're' ints: [0, 1, 2] } "
                      "knobs { name: 'ann' kind: 'an' names: ['none', 'none'] } "
                      "knobs { name: 'unroll' kind: 'ot' ints: 0 }"),
              HasSubstr("config gives no value for knob 'nest'"));
  ConfigSpace bad;
  EXPECT_THROW(bad.DefineKnob("nest", {0, 1}, 2), UserError);
}

TEST(ConfigProtoTest, BadInputIsAUserErrorSayingWhatAndWhere) {
  ConfigSpace space = MakeSpace();
  EXPECT_THAT(ErrorOf(space, "knobs { name: 'tile_y' kind: 'sp' ints: [-1, 4] }"),
              HasSubstr("unknown knob 'tile_y'"));
  EXPECT_THAT(ErrorOf(space,
                      "knobs { name: 'tile_x' kind: 'sp' ints: [-1, 3, 1] } "
                      "knobs { name: 'order' kind: 're' ints: [0, 1, 2] } "
                      "knobs { name: 'ann' kind: 'an' names: ['none', 'none'] } "
                      "knobs { name: 'unroll' kind: 'ot' ints: 0 }"),
              HasSubstr("value sp[-1,3,1] is not a choice of split knob 'tile_x'"));
  EXPECT_THAT(ErrorOf(space, "knobs { name: 'tile_x' kind: 'sp' ints: [-1, 1, 1] }"),
              HasSubstr("config gives no value for knob 'order'"));
  EXPECT_THAT(
      ErrorOf(space, "knobs { name: 'unroll' kind: 're' ints: 0 }"),
      HasSubstr("knob 'unroll' is a knob knob in this space, but the config has a reorder"));
  EXPECT_THAT(ErrorOf(space, "knobs { name: 'unroll' kind: 'xx' ints: 0 }"),
              HasSubstr("unknown kind tag 'xx'"));
  EXPECT_THAT(ErrorOf(space, "knobs { name: 'ann' kind: 'an' names: ['none', 'vectorise'] }"),
              HasSubstr("unknown annotation 'vectorise'"));
  EXPECT_THAT(ErrorOf(space, "knobs { name: 'unroll' kind: 'ot' ints: [1, 2] }"),
              HasSubstr("knob 'unroll' needs exactly one value"));
  EXPECT_THAT(ErrorOf(space,
                      "knobs { name: 'unroll' kind: 'ot' ints: 0 } "
                      "knobs { name: 'unroll' kind: 'ot' ints: 4 }"),
              HasSubstr("knob 'unroll' appears twice"));
}

}  // namespace
}  // namespace space
}  // namespace tessera
