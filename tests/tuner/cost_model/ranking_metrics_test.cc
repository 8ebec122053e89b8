#include "tuner/cost_model/ranking_metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace tuner
}  // namespace tessera
