#include "proto/grant.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace fleet
}  // namespace tessera
