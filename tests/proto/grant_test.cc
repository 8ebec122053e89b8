#include "proto/grant.h"

#include <gtest/gtest.h>

#include <thread>

namespace tessera {
namespace fleet {
namespace {

tracker::v1::Grant SampleGrant() {
  tracker::v1::Grant grant;
  grant.set_session_id("0123");
  grant.set_key("rk3399");
  grant.set_server_id("s1");
  grant.set_server_address("10.0.0.2:9091");
  grant.set_expires_unix_ms(1700000000000);
  return grant;
}

TEST(GrantTest, SignatureCoversEveryField) {
  const std::string key = GrantKeyFromToken("secret");
  tracker::v1::Grant grant = SampleGrant();
  SignGrant(key, &grant);
  EXPECT_EQ(grant.signature().size(), 32u);
  EXPECT_TRUE(GrantSignatureValid(key, grant));
  EXPECT_FALSE(GrantSignatureValid(GrantKeyFromToken("other"), grant));
  for (int field = 0; field < 5; ++field) {
    tracker::v1::Grant altered = grant;
    switch (field) {
      case 0:
        altered.set_session_id("0124");
        break;
      case 1:
        altered.set_key("rk3399x");
        break;
      case 2:
        altered.set_server_id("s2");
        break;
      case 3:
        altered.set_server_address("10.0.0.3:9091");
        break;
      case 4:
        altered.set_expires_unix_ms(grant.expires_unix_ms() + 1);
        break;
    }
    EXPECT_FALSE(GrantSignatureValid(key, altered)) << "field " << field;
  }
  // Moving text between fields does not keep a signature valid (fields are length-prefixed).
  tracker::v1::Grant shifted = grant;
  shifted.set_session_id("0123r");
  shifted.set_key("k3399");
  EXPECT_FALSE(GrantSignatureValid(key, shifted));
}

std::string Hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

// RFC 4231 test cases 1 and 2, alternating keys and repeating them: each thread keeps a context
// per key, and a switch of key or a repeated key must give the one-shot digest every time.
TEST(GrantTest, HmacSha256MatchesRfc4231AcrossKeySwitches) {
  const std::string key1(20, '\x0b'), key2 = "Jefe";
  const std::string text1 = "Hi There", text2 = "what do ya want for nothing?";
  const std::string digest1 = "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7";
  const std::string digest2 = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(Hex(HmacSha256(key1, text1)), digest1);
    EXPECT_EQ(Hex(HmacSha256(key1, text1)), digest1);
    EXPECT_EQ(Hex(HmacSha256(key2, text2)), digest2);
  }
  std::string from_thread;
  std::thread other([&] { from_thread = Hex(HmacSha256(key2, text2)); });
  other.join();
  EXPECT_EQ(from_thread, digest2);
}

}  // namespace
}  // namespace fleet
}  // namespace tessera
