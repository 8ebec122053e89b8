// The fleet's backoff rule: doubling from the first wait to the cap, the first again after a
// success, and sane bounds for odd settings.
#include "fleet/client/backoff.h"

#include <gtest/gtest.h>

#include <vector>

namespace tessera {
namespace fleet {
namespace {

std::vector<int64_t> Waits(Backoff& backoff, int n) {
  std::vector<int64_t> waits;
  for (int i = 0; i < n; ++i) waits.push_back(backoff.Next());
  return waits;
}

TEST(BackoffTest, DoublesUpToTheCapAndStartsOverAfterASuccess) {
  Backoff backoff(50, 1000);
  EXPECT_EQ(Waits(backoff, 7), (std::vector<int64_t>{50, 100, 200, 400, 800, 1000, 1000}));
  backoff.Reset();
  EXPECT_EQ(Waits(backoff, 2), (std::vector<int64_t>{50, 100}));
}

TEST(BackoffTest, OddSettingsStayPositiveAndCapped) {
  Backoff zero(0, 3);
  EXPECT_EQ(Waits(zero, 4), (std::vector<int64_t>{1, 2, 3, 3}));
  Backoff cap_below_first(100, 10);
  EXPECT_EQ(Waits(cap_below_first, 2), (std::vector<int64_t>{100, 100}));
}

}  // namespace
}  // namespace fleet
}  // namespace tessera
