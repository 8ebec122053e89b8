// A model job's trial budget split between its tasks.
#include "tuner/tune/trial_shares.h"

#include <gtest/gtest.h>

#include <numeric>

#include "common/error.h"

namespace tessera {
namespace tuner {
namespace {

TEST(TrialSharesTest, EveryTaskGetsAFloorAndTheRestGoesByWeightTimesFlops) {
  std::vector<ModelTask> tasks = {{"a(1)", 1, 1e6}, {"b(1)", 3, 1e6}, {"c(1)", 1, 0}};
  std::vector<int64_t> shares = TrialShares(tasks, 100);
  EXPECT_EQ(std::accumulate(shares.begin(), shares.end(), int64_t{0}), 100);
  EXPECT_EQ(shares[2], 16) << "the floor: 100 / (2 x 3)";
  EXPECT_EQ(shares[0], 16 + 13);
  EXPECT_EQ(shares[1], 16 + 39);
}

TEST(TrialSharesTest, TheSharesAlwaysAddUp) {
  std::vector<ModelTask> tasks = {{"a(1)", 1, 7}, {"b(1)", 1, 7}, {"c(1)", 1, 7}};
  for (int64_t trials : {3, 4, 10, 11, 1000}) {
    std::vector<int64_t> shares = TrialShares(tasks, trials);
    EXPECT_EQ(std::accumulate(shares.begin(), shares.end(), int64_t{0}), trials);
    for (int64_t share : shares) EXPECT_GE(share, 1);
  }
}

TEST(TrialSharesTest, FewerTrialsThanTasksIsAUserError) {
  std::vector<ModelTask> tasks = {{"a(1)", 1, 1}, {"b(1)", 1, 1}};
  try {
    TrialShares(tasks, 1);
    FAIL() << "no error";
  } catch (const UserError& error) {
    EXPECT_STREQ(error.what(),
                 "1 trials cannot be shared between 2 tasks: give at least one per task");
  }
}

}  // namespace
}  // namespace tuner
}  // namespace tessera
