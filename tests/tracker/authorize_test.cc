#include "tracker/authorize.h"

#include <gtest/gtest.h>

namespace tessera::tracker {
namespace {

TEST(AuthorizeTest, WithoutATokenOnlyLoopbackIsAllowed) {
  const std::string any = "whatever";
  EXPECT_EQ(CheckAccess("", true, nullptr), AccessRefusal::kNone);
  EXPECT_EQ(CheckAccess("", true, &any), AccessRefusal::kNone);
  EXPECT_EQ(CheckAccess("", false, nullptr), AccessRefusal::kNotLoopback);
  EXPECT_EQ(CheckAccess("", false, &any), AccessRefusal::kNotLoopback);
  EXPECT_EQ(RefusalMessage(AccessRefusal::kNotLoopback, "ipv4:10.0.0.7:1"),
            "this tracker runs without --token-file and accepts loopback clients only; refused "
            "peer ipv4:10.0.0.7:1");
}

TEST(AuthorizeTest, WithATokenEveryPeerMustPresentIt) {
  const std::string right = "s3cret", wrong = "s3cre", empty;
  for (bool loopback : {true, false}) {
    EXPECT_EQ(CheckAccess(right, loopback, &right), AccessRefusal::kNone);
    EXPECT_EQ(CheckAccess(right, loopback, nullptr), AccessRefusal::kMissingToken);
    EXPECT_EQ(CheckAccess(right, loopback, &wrong), AccessRefusal::kWrongToken);
    EXPECT_EQ(CheckAccess(right, loopback, &empty), AccessRefusal::kWrongToken);
  }
}

}  // namespace
}  // namespace tessera::tracker
