#include "tracker/tracker_service.h"

#include <gtest/gtest.h>

namespace tessera {
namespace tracker {
namespace {

TEST(TrackerServiceTest, OnlyLoopbackPeersCountAsLocal) {
  EXPECT_TRUE(IsLoopbackPeer("ipv4:127.0.0.1:40000"));
  EXPECT_TRUE(IsLoopbackPeer("ipv4:127.1.2.3:40000"));
  EXPECT_TRUE(IsLoopbackPeer("ipv6:[::1]:40000"));
  EXPECT_TRUE(IsLoopbackPeer("ipv6:%5B::1%5D:40000"));
  EXPECT_TRUE(IsLoopbackPeer("ipv6:[::ffff:127.0.0.1]:40000"));
  EXPECT_TRUE(IsLoopbackPeer("unix:/tmp/tracker.sock"));
  EXPECT_FALSE(IsLoopbackPeer("ipv4:10.0.0.7:40000"));
  EXPECT_FALSE(IsLoopbackPeer("ipv4:192.168.1.127:40000"));
  EXPECT_FALSE(IsLoopbackPeer("ipv6:[::12]:40000"));
  EXPECT_FALSE(IsLoopbackPeer("ipv6:[fe80::1]:40000"));
  EXPECT_FALSE(IsLoopbackPeer(""));
}

}  // namespace
}  // namespace tracker
}  // namespace tessera
