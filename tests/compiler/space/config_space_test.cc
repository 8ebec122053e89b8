#include "compiler/space/config_space.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "compiler/support/error.h"

namespace tessera {
namespace space {
namespace {

using ::testing::HasSubstr;

ConfigSpace DenseLikeSpace() {
  ConfigSpace space;
  space.DefineSplit("tile_y", 64, {SplitPolicy::kFactors, 3, 0});   // 28
  space.DefineSplit("tile_x", 48, {SplitPolicy::kFactors, 2, 16});  // 1,2,3,4,6,8,12,16: 8
  space.DefineReorder("order", 3);                                  // 6
  space.DefineAnnotate("ann", 2, {Annotation::kNone, Annotation::kUnroll, Annotation::kVectorize});
  space.DefineKnob("unroll_max", {0, 16, 64});  // 3
  return space;
}

TEST(ConfigSpaceTest, SizeIsTheProductOfTheKnobs) {
  ConfigSpace space = DenseLikeSpace();
  EXPECT_EQ(space.size(), 28 * 8 * 6 * 8 * 3);
  EXPECT_EQ(space.knobs().size(), 5u);
  EXPECT_THAT(space.ToString(), HasSubstr("total: 32256 configurations"));
}

TEST(ConfigSpaceTest, IndexIsMixedRadixWithTheFirstKnobLeastSignificant) {
  ConfigSpace space = DenseLikeSpace();
  ConfigEntity c = space.Get(1);
  EXPECT_EQ(c.choices(), (std::vector<int64_t>{1, 0, 0, 0, 0}));
  ConfigEntity d = space.Get(28);
  EXPECT_EQ(d.choices(), (std::vector<int64_t>{0, 1, 0, 0, 0}));
  EXPECT_EQ(space.FromChoices({3, 2, 1, 4, 2}).index(), 3 + 28 * (2 + 8 * (1 + 6 * (4 + 8 * 2))));
}

TEST(ConfigSpaceTest, EveryIndexRoundTripsThroughItsChoices) {
  ConfigSpace space = DenseLikeSpace();
  std::set<std::vector<int64_t>> seen;
  for (int64_t i = 0; i < space.size(); ++i) {
    ConfigEntity c = space.Get(i);
    ASSERT_EQ(space.FromChoices(c.choices()).index(), i);
    seen.insert(c.choices());
  }
  EXPECT_EQ(static_cast<int64_t>(seen.size()), space.size());
}

TEST(ConfigSpaceTest, AccessorsReturnTheChosenValues) {
  ConfigSpace space = DenseLikeSpace();
  ConfigEntity c = space.FromChoices({1, 7, 5, 2, 1});
  EXPECT_EQ(c.Split("tile_y"), (std::vector<int64_t>{-1, 1, 2}));
  EXPECT_EQ(c.Split("tile_x"), (std::vector<int64_t>{-1, 16}));
  EXPECT_EQ(c.Reorder("order"), (std::vector<int64_t>{2, 1, 0}));
  EXPECT_EQ(c.Annotate("ann"),
            (std::vector<Annotation>{Annotation::kNone, Annotation::kVectorize}));
  EXPECT_EQ(c.Value("unroll_max"), 16);
  EXPECT_EQ(c.ToString(),
            "[tile_y=sp[-1,1,2], tile_x=sp[-1,16], order=re[2,1,0], ann=an[none,vec], "
            "unroll_max=ot(16)]");
}

TEST(ConfigSpaceTest, BadLookupsAreUserErrors) {
  ConfigSpace space = DenseLikeSpace();
  try {
    space.Get(space.size());
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("config index 32256 is out of range: the space has 32256 "
                                    "configurations (valid indices 0..32255)"));
  }
  EXPECT_THROW(space.Get(-1), UserError);
  try {
    space.knob("tile_z");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown knob 'tile_z' (the space has: tile_y, tile_x, order, "
                                    "ann, unroll_max)"));
  }
  ConfigEntity c = space.Get(0);
  try {
    c.Value("tile_x");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("knob 'tile_x' is a split knob, not a knob knob"));
  }
  EXPECT_THROW(c.Split("nope"), UserError);
  EXPECT_THROW(space.FromChoices({0, 0, 0}), UserError);
  try {
    space.FromChoices({0, 8, 0, 0, 0});
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(),
                HasSubstr("choice 8 of knob 'tile_x' is out of range (it has 8 choices)"));
  }
}

TEST(ConfigSpaceTest, BadDefinitionsAreUserErrors) {
  ConfigSpace space;
  space.DefineKnob("k", {1, 2});
  try {
    space.DefineKnob("k", {3});
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("knob 'k' is defined twice"));
  }
  EXPECT_THROW(space.DefineKnob("empty", {}), UserError);
  EXPECT_THROW(space.DefineKnob("dup", {4, 4}), UserError);
  EXPECT_THROW(space.DefineReorderCandidates("r", 3, {{0, 1, 1}}), UserError);
  EXPECT_EQ(space.DefineReorderCandidates("r", 3, {{0, 1, 2}, {2, 0, 1}}).choices.size(), 2u);
  EXPECT_EQ(space.size(), 4);
}

TEST(ConfigSpaceTest, HugeSpacesAreRefusedInsteadOfOverflowing) {
  ConfigSpace space;
  for (int i = 0; i < 5; ++i) {  // 1771 choices each: about 2^54 in all
    space.DefineSplit("s" + std::to_string(i), 1 << 20, {SplitPolicy::kFactors, 4, 0});
  }
  try {
    space.DefineSplit("last", 1 << 20, {SplitPolicy::kFactors, 4, 0});
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("knob 'last' makes the space larger than 2^63"));
  }
}

TEST(ConfigSpaceTest, FallbackIsFirstChoicesUnlessTheTemplateSetsOne) {
  ConfigSpace space;
  space.DefineSplit("tile", 128, {SplitPolicy::kFactors, 3, 0});
  space.DefineKnob("unroll", {0, 8});
  EXPECT_TRUE(space.Fallback().is_fallback());
  EXPECT_FALSE(space.Get(0).is_fallback());
  EXPECT_EQ(space.Fallback().index(), 0);
  space.FallbackSplit("tile", {-1, 8, 4});
  space.SetFallback("unroll", {8});
  ConfigEntity fallback = space.Fallback();
  EXPECT_EQ(fallback.Split("tile"), (std::vector<int64_t>{-1, 8, 4}));
  EXPECT_EQ(fallback.Value("unroll"), 8);
  EXPECT_EQ(space.Get(fallback.index()).choices(), fallback.choices());
  space.FallbackSplit("tile", {-1, -1, 3});  // 3 does not divide 128: the largest allowed is 2
  EXPECT_EQ(space.Fallback().Split("tile"), (std::vector<int64_t>{-1, 64, 2}));
  EXPECT_THROW(space.SetFallback("unroll", {5}), UserError);
  EXPECT_THROW(space.FallbackSplit("unroll", {-1, 2}), UserError);
  EXPECT_THROW(space.FallbackSplit("tile", {-1, 2}), UserError);
}

TEST(ConfigSpaceTest, WithSplitInnerChangesOneSplitAndKeepsTheRest) {
  ConfigSpace space;
  space.DefineSplit("block", 64, {SplitPolicy::kFactors, 2, 64});
  space.DefineKnob("unroll", {0, 1});
  space.FallbackSplit("block", {-1, 16});
  space.SetFallback("unroll", {1});
  ConfigEntity wide = space.WithSplitInner(space.Fallback(), "block", 32);
  EXPECT_EQ(wide.Split("block"), (std::vector<int64_t>{-1, 32}));
  EXPECT_EQ(wide.Value("unroll"), 1);
  EXPECT_FALSE(wide.is_fallback());
  EXPECT_EQ(space.WithSplitInner(space.Fallback(), "block", 3), space.Fallback());  // no choice
  EXPECT_THROW(space.WithSplitInner(space.Fallback(), "nothing", 2), UserError);
}

TEST(ConfigSpaceTest, EntitiesOutliveLaterDefinitions) {
  ConfigSpace space;
  space.DefineKnob("a", {1, 2, 3});
  ConfigEntity early = space.Get(2);
  space.DefineKnob("b", {7, 8});
  EXPECT_EQ(early.Value("a"), 3);
  EXPECT_EQ(early.knobs().size(), 1u);
  EXPECT_EQ(space.Get(2).knobs().size(), 2u);
  EXPECT_NE(early, space.Get(2));
}

}  // namespace
}  // namespace space
}  // namespace tessera
