#include "tracker/grant_timings.h"

#include <gtest/gtest.h>

namespace tessera {
namespace tracker {
namespace {

const v1::GrantLatency* Path(const v1::FleetStatus& status, const std::string& path) {
  for (const v1::GrantLatency& latency : status.grant_latency()) {
    if (latency.path() == path) return &latency;
  }
  return nullptr;
}

TEST(GrantTimingsTest, ReportsOnlyPathsThatGranted) {
  GrantTimings timings;
  v1::FleetStatus status;
  timings.AppendTo(&status);
  EXPECT_EQ(status.grant_latency_size(), 0);
  timings.Add(GrantPath::kFree, 0.1, 0.2);
  timings.AppendTo(&status);
  ASSERT_EQ(status.grant_latency_size(), 1);
  EXPECT_EQ(status.grant_latency(0).path(), "free");
  EXPECT_EQ(status.grant_latency(0).grants(), 1);
  EXPECT_DOUBLE_EQ(status.grant_latency(0).decided_p99_ms(), 0.1);
  EXPECT_DOUBLE_EQ(status.grant_latency(0).sent_max_ms(), 0.2);
}

TEST(GrantTimingsTest, PercentilesOfEachPath) {
  GrantTimings timings;
  for (int i = 1; i <= 100; ++i) timings.Add(GrantPath::kHandoff, i / 100.0, i);
  timings.Add(GrantPath::kFree, 5, 7);
  v1::FleetStatus status;
  timings.AppendTo(&status);
  const v1::GrantLatency* handoff = Path(status, "handoff");
  ASSERT_NE(handoff, nullptr);
  EXPECT_EQ(handoff->grants(), 100);
  EXPECT_DOUBLE_EQ(handoff->decided_p50_ms(), 0.51);  // nearest rank of 0.5 * 99
  EXPECT_DOUBLE_EQ(handoff->sent_p50_ms(), 51);
  EXPECT_DOUBLE_EQ(handoff->sent_p99_ms(), 99);
  EXPECT_DOUBLE_EQ(handoff->sent_max_ms(), 100);
  const v1::GrantLatency* free = Path(status, "free");
  ASSERT_NE(free, nullptr);
  EXPECT_EQ(free->grants(), 1);
  EXPECT_DOUBLE_EQ(free->sent_p50_ms(), 7);
}

TEST(GrantTimingsTest, KeepsOnlyTheMostRecentGrants) {
  GrantTimings timings(4);
  for (int i = 0; i < 4; ++i) timings.Add(GrantPath::kHandoff, 100, 100);  // a slow start
  for (int i = 0; i < 5; ++i) timings.Add(GrantPath::kHandoff, 1, 2);
  v1::FleetStatus status;
  timings.AppendTo(&status);
  ASSERT_EQ(status.grant_latency_size(), 1);
  EXPECT_EQ(status.grant_latency(0).grants(), 4);
  EXPECT_DOUBLE_EQ(status.grant_latency(0).decided_p99_ms(), 1);
  EXPECT_DOUBLE_EQ(status.grant_latency(0).sent_max_ms(), 2);
}

}  // namespace
}  // namespace tracker
}  // namespace tessera
