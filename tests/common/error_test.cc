#include "common/error.h"

#include <gtest/gtest.h>

namespace tessera {
namespace {

TEST(ErrorTest, UserCheckStreamsTheMessage) {
  try {
    TESSERA_USER_CHECK(1 + 1 == 3) << "axis '"
                                   << "x"
                                   << "' of stage " << 2;
    FAIL() << "no throw";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "axis 'x' of stage 2");
  }
  TESSERA_USER_CHECK(true) << "never built";
}

TEST(ErrorTest, InternalErrorsNameThePlaceAndArePrefixed) {
  try {
    TESSERA_INTERNAL_CHECK(false) << "detail";
    FAIL() << "no throw";
  } catch (const InternalError& e) {
    std::string what = e.what();
    EXPECT_EQ(what.rfind("internal error: common/", 0) == 0 ||
                  what.rfind("internal error: tests/", 0) == 0,
              true)
        << what;
    EXPECT_NE(what.find("check failed: false: detail"), std::string::npos) << what;
  }
}

TEST(ErrorTest, ConfigErrorIsAUserError) {
  EXPECT_THROW(throw ConfigError("bad flag"), UserError);
  EXPECT_THROW(throw fleet::ConfigError("bad flag"), ConfigError);
}

}  // namespace
}  // namespace tessera
