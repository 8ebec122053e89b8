#include "fleet/secrets.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "common/error.h"

namespace tessera {
namespace fleet {
namespace {

TEST(SecretsTest, TokenFiles) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string path = std::string(tmp ? tmp : "/tmp") + "/token";
  std::ofstream(path) << "  s3cret \n";
  EXPECT_EQ(ReadTokenFile(path), "s3cret");
  std::ofstream(path) << " \n";
  try {
    ReadTokenFile(path);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "token file '" + path + "' is empty");
  }
  EXPECT_THROW(ReadTokenFile(path + ".missing"), ConfigError);
}

TEST(SecretsTest, RandomIdsDiffer) {
  EXPECT_EQ(RandomHexId().size(), 32u);
  EXPECT_NE(RandomHexId(), RandomHexId());
  EXPECT_TRUE(SecretsEqual("abc", "abc"));
  EXPECT_FALSE(SecretsEqual("abc", "abd"));
  EXPECT_FALSE(SecretsEqual("abc", "abcd"));
}

}  // namespace
}  // namespace fleet
}  // namespace tessera
