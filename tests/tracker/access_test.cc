#include "tracker/access.h"

#include <gtest/gtest.h>

namespace tessera::tracker {
namespace {

TEST(AccessTest, OnlyLoopbackPeersCountAsLocal) {
  EXPECT_TRUE(IsLoopbackPeer("ipv4:127.0.0.1:40000"));
  EXPECT_TRUE(IsLoopbackPeer("ipv6:[::1]:40000"));
  EXPECT_FALSE(IsLoopbackPeer("ipv4:10.0.0.7:40000"));
  EXPECT_FALSE(IsLoopbackPeer(""));
}

TEST(AccessTest, WithoutATokenOnlyLoopbackIsAllowed) {
  const std::string any = "whatever";
  EXPECT_EQ(CheckAccess("", true, nullptr), Refusal::kNone);
  EXPECT_EQ(CheckAccess("", true, &any), Refusal::kNone);
  EXPECT_EQ(CheckAccess("", false, nullptr), Refusal::kNotLoopback);
  EXPECT_EQ(CheckAccess("", false, &any), Refusal::kNotLoopback);
  EXPECT_EQ(RefusalMessage(Refusal::kNotLoopback, "ipv4:10.0.0.7:1"),
            "this tracker runs without --token-file and accepts loopback clients only; refused "
            "peer ipv4:10.0.0.7:1");
}

TEST(AccessTest, WithATokenEveryPeerMustPresentIt) {
  const std::string right = "s3cret", wrong = "s3cre", empty;
  for (bool loopback : {true, false}) {
    EXPECT_EQ(CheckAccess(right, loopback, &right), Refusal::kNone);
    EXPECT_EQ(CheckAccess(right, loopback, nullptr), Refusal::kMissingToken);
    EXPECT_EQ(CheckAccess(right, loopback, &wrong), Refusal::kWrongToken);
    EXPECT_EQ(CheckAccess(right, loopback, &empty), Refusal::kWrongToken);
  }
}

}  // namespace
}  // namespace tessera::tracker
