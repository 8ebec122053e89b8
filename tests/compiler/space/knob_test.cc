#include "compiler/space/knob.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "compiler/support/error.h"

namespace tessera {
namespace space {
namespace {

using ::testing::HasSubstr;

// A k-way factor split of n = ∏ p^e has ∏ C(e+k-1, k-1) choices.
TEST(KnobTest, FactorSplitCountsFollowTheDivisorFormula) {
  EXPECT_EQ(EnumerateSplits("t", 64, {SplitPolicy::kFactors, 2, 0}).size(), 7u);      // 2^6: 7
  EXPECT_EQ(EnumerateSplits("t", 64, {SplitPolicy::kFactors, 3, 0}).size(), 28u);     // C(8,2)
  EXPECT_EQ(EnumerateSplits("t", 56, {SplitPolicy::kFactors, 2, 0}).size(), 8u);      // 2^3·7
  EXPECT_EQ(EnumerateSplits("t", 1024, {SplitPolicy::kFactors, 4, 0}).size(), 286u);  // C(13,3)
  EXPECT_EQ(EnumerateSplits("t", 7, {SplitPolicy::kFactors, 1, 0}).size(), 1u);
}

TEST(KnobTest, FactorSplitsDivideTheExtentAndStartWithTheRemainder) {
  auto splits = EnumerateSplits("t", 12, {SplitPolicy::kFactors, 3, 0});
  for (const auto& s : splits) {
    ASSERT_EQ(s.size(), 3u);
    EXPECT_EQ(s[0], -1);
    EXPECT_EQ(12 % (s[1] * s[2]), 0);
  }
  EXPECT_EQ(splits.front(), (std::vector<int64_t>{-1, 1, 1}));
  EXPECT_EQ(splits.back(), (std::vector<int64_t>{-1, 12, 1}));
}

TEST(KnobTest, MaxFactorBoundsEveryInnerFactor) {
  auto splits = EnumerateSplits("t", 64, {SplitPolicy::kFactors, 3, 4});
  EXPECT_EQ(splits.size(), 9u);  // inner pairs from {1,2,4}²
  for (const auto& s : splits) {
    EXPECT_LE(s[1], 4);
    EXPECT_LE(s[2], 4);
  }
}

TEST(KnobTest, InnermostMultipleKeepsWholeVectorsOnly) {
  auto splits = EnumerateSplits("t", 64, {SplitPolicy::kFactors, 3, 0, 8});
  EXPECT_EQ(splits.size(), 10u);  // innermost 8 (4 outer choices), 16 (3), 32 (2), 64 (1)
  for (const auto& s : splits) EXPECT_EQ(s[2] % 8, 0);
  // No factor of 12 is a multiple of 8: the constraint gives way rather than empty the knob.
  EXPECT_EQ(EnumerateSplits("t", 12, {SplitPolicy::kFactors, 2, 0, 8}).size(), 6u);
  EXPECT_THROW(EnumerateSplits("t", 12, {SplitPolicy::kFactors, 2, 0, 0}), UserError);
}

TEST(KnobTest, PowerOfTwoSplitsAllowTails) {
  auto splits = EnumerateSplits("t", 100, {SplitPolicy::kPowerOfTwo, 2, 0});
  ASSERT_EQ(splits.size(), 7u);  // 1..64
  EXPECT_EQ(splits.back(), (std::vector<int64_t>{-1, 64}));
  auto two_level = EnumerateSplits("t", 10, {SplitPolicy::kPowerOfTwo, 3, 0});
  for (const auto& s : two_level) EXPECT_LE(s[1] * s[2], 10);
  EXPECT_EQ(two_level.size(), 10u);  // (1,1..8) (2,1..4) (4,1..2) (8,1)
}

// The innermost factor divides the extent or is a power of two; the middle ones divide the tile
// count of the extent padded to it. 10 rows, at most 8: innermost 1, 2, 4, 5, 8 over 10, 5, 3, 2
// and 2 tiles.
TEST(KnobTest, PaddedInnermostSplitsTileThePaddedExtent) {
  using Splits = std::vector<std::vector<int64_t>>;
  EXPECT_EQ(EnumerateSplits("t", 10, {SplitPolicy::kPaddedInnermost, 3, 8}), (Splits{{-1, 1, 1},
                                                                                     {-1, 1, 2},
                                                                                     {-1, 1, 4},
                                                                                     {-1, 1, 5},
                                                                                     {-1, 1, 8},
                                                                                     {-1, 2, 1},
                                                                                     {-1, 2, 5},
                                                                                     {-1, 2, 8},
                                                                                     {-1, 3, 4},
                                                                                     {-1, 5, 1},
                                                                                     {-1, 5, 2}}));
  // Where the extent has the factors, the kFactors splits and no others.
  for (int64_t extent : {64, 1024}) {
    EXPECT_EQ(EnumerateSplits("t", extent, {SplitPolicy::kPaddedInnermost, 3, 64}),
              EnumerateSplits("t", extent, {SplitPolicy::kFactors, 3, 64}));
  }
  // A prime keeps its kFactors splits among the padded ones.
  Splits prime = EnumerateSplits("t", 197, {SplitPolicy::kPaddedInnermost, 3, 64});
  for (const auto& split : EnumerateSplits("t", 197, {SplitPolicy::kFactors, 3, 64})) {
    EXPECT_NE(std::find(prime.begin(), prime.end(), split), prime.end());
  }
  EXPECT_NE(std::find(prime.begin(), prime.end(), std::vector<int64_t>{-1, 5, 8}), prime.end());
  EXPECT_EQ(EnumerateSplits("t", 7, {SplitPolicy::kPaddedInnermost, 1, 0}), (Splits{{-1}}));
}

TEST(KnobTest, ReorderAndAnnotateEnumerations) {
  EXPECT_EQ(EnumerateReorders("r", 4, ReorderPolicy::kAll).size(), 24u);
  EXPECT_EQ(EnumerateReorders("r", 4, ReorderPolicy::kIdentity).size(), 1u);
  auto anns = EnumerateAnnotations(
      "a", 2, {Annotation::kNone, Annotation::kUnroll, Annotation::kVectorize});
  EXPECT_EQ(anns.size(), 8u);  // 3² minus (vec, vec)
}

TEST(KnobTest, BadDefinitionsAreUserErrorsNamingTheKnob) {
  try {
    EnumerateSplits("tile_x", 0, {});
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("define_split 'tile_x': extent must be positive, got 0"));
  }
  EXPECT_THROW(EnumerateSplits("t", 8, {SplitPolicy::kFactors, 0, 0}), UserError);
  EXPECT_THROW(EnumerateReorders("r", 9, ReorderPolicy::kAll), UserError);
  EXPECT_THROW(EnumerateAnnotations("a", 2, {}), UserError);
  try {
    AnnotationFromName("vectorise");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown annotation 'vectorise'"));
  }
}

}  // namespace
}  // namespace space
}  // namespace tessera
