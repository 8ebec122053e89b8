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

// The read-only token reads (the shared log, the fleet status) and is refused for the rest,
// with a message that says so; the fleet's token does everything; neither is the other.
TEST(AuthorizeTest, TheReadOnlyTokenOnlyReads) {
  const AccessTokens tokens("s3cret", "r3ader");
  const std::string full = "s3cret", reader = "r3ader", wrong = "r3ade", empty;
  for (bool loopback : {true, false}) {
    for (Access needs : {Access::kRead, Access::kWrite}) {
      EXPECT_EQ(CheckAccess(tokens, loopback, &full, needs), AccessRefusal::kNone);
      EXPECT_EQ(CheckAccess(tokens, loopback, nullptr, needs), AccessRefusal::kMissingToken);
      EXPECT_EQ(CheckAccess(tokens, loopback, &wrong, needs), AccessRefusal::kWrongToken);
      EXPECT_EQ(CheckAccess(tokens, loopback, &empty, needs), AccessRefusal::kWrongToken);
    }
    EXPECT_EQ(CheckAccess(tokens, loopback, &reader, Access::kRead), AccessRefusal::kNone);
    EXPECT_EQ(CheckAccess(tokens, loopback, &reader, Access::kWrite), AccessRefusal::kReadOnly);
  }
  EXPECT_EQ(RefusalMessage(AccessRefusal::kReadOnly, "ipv4:10.0.0.7:1"),
            "the read-only token reads the shared log and the fleet status only; this call needs "
            "the fleet's token");
  // Without a read-only token, a tracker's tokens check as its one token did.
  const AccessTokens one("s3cret");
  EXPECT_EQ(CheckAccess(one, false, &reader, Access::kRead), AccessRefusal::kWrongToken);
  EXPECT_EQ(CheckAccess(AccessTokens(), true, nullptr, Access::kWrite), AccessRefusal::kNone);
}

}  // namespace
}  // namespace tessera::tracker
