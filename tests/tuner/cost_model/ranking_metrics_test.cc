#include "tuner/cost_model/ranking_metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "compiler/support/error.h"

namespace tessera {
namespace tuner {
namespace {

TEST(RankingMetricsTest, PairwiseAccuracy) {
  std::vector<double> costs = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(PairwiseRankingAccuracy({4, 3, 2, 1}, costs), 1.0);
  EXPECT_DOUBLE_EQ(PairwiseRankingAccuracy({1, 2, 3, 4}, costs), 0.0);
  EXPECT_DOUBLE_EQ(PairwiseRankingAccuracy({0, 0, 0, 0}, costs), 0.5);
  EXPECT_DOUBLE_EQ(PairwiseRankingAccuracy({4, 3, 1, 2}, costs), 5.0 / 6.0);
  EXPECT_DOUBLE_EQ(PairwiseRankingAccuracy({1, 2}, {5, 5}), 1.0);  // no informative pair
  EXPECT_THROW(PairwiseRankingAccuracy({1}, costs), UserError);
}

TEST(RankingMetricsTest, RecallAtK) {
  std::vector<double> costs = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(RecallAtK({9, 8, 0, 0}, costs, 2), 1.0);
  EXPECT_DOUBLE_EQ(RecallAtK({9, 0, 8, 0}, costs, 2), 0.5);
  try {
    RecallAtK({1, 2, 3, 4}, costs, 5);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("recall@k: k = 5 is not in [1, 4]"));
  }
}

TEST(RankingMetricsTest, TrialsToFraction) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> costs = {4, inf, 1.0, 1.02, 2};
  // Order by score: 0 (cost 4), 1 (failed), 3 (1.02, within 95% of the best), ...
  EXPECT_EQ(TrialsToFraction({9, 8, 1, 7, 5}, costs, 0.95), 3);
  EXPECT_EQ(TrialsToFraction({9, 8, 1, 7, 5}, costs, 1.0), 5);
  EXPECT_EQ(TrialsToFraction({0, 0, 9, 0, 0}, costs, 1.0), 1);
  EXPECT_EQ(TrialsToFraction({1, 2}, {inf, inf}, 0.95), -1);
  try {
    TrialsToFraction({1}, {1}, 1.5);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("trials to target: fraction 1.5 is not in (0, 1]"));
  }
}

}  // namespace
}  // namespace tuner
}  // namespace tessera
