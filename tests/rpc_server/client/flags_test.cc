#include "rpc_server/client/flags.h"

#include <gtest/gtest.h>

#include "proto/grant.h"

namespace tessera {
namespace fleet {
namespace {

TEST(FlagsTest, ParsesValuesAndSwitches) {
  Flags flags("prog", {"--listen", "127.0.0.1:0", "--json", "--lease-timeout-ms=500"}, {"json"});
  EXPECT_EQ(flags.Get("listen"), "127.0.0.1:0");
  EXPECT_TRUE(flags.Has("json"));
  EXPECT_EQ(flags.GetInt("lease-timeout-ms", 0), 500);
  EXPECT_EQ(flags.GetInt("missing", 7), 7);
  EXPECT_EQ(flags.Get("missing", "d"), "d");
  EXPECT_NO_THROW(flags.CheckKnown({"listen", "json", "lease-timeout-ms"}));
}

template <typename Body>
std::string ErrorOf(Body body) {
  try {
    body();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST(FlagsTest, ErrorsNameTheProgramAndFlag) {
  EXPECT_EQ(ErrorOf([] { Flags("prog", {"stray"}); }), "prog: unexpected argument 'stray'");
  EXPECT_EQ(ErrorOf([] { Flags("prog", {"--key"}); }), "prog: flag --key needs a value");
  Flags flags("prog", {"--n", "ten", "--typo", "1"});
  EXPECT_EQ(ErrorOf([&] { flags.GetInt("n", 0); }), "prog: flag --n needs an integer, got 'ten'");
  EXPECT_EQ(ErrorOf([&] { flags.Require("key"); }), "prog: flag --key is required");
  EXPECT_EQ(ErrorOf([&] { flags.CheckKnown({"n"}); }), "prog: unknown flag --typo");
}

TEST(FlagsTest, SplitsHostAndPort) {
  std::string host;
  int port = 0;
  SplitHostPort("listen", "127.0.0.1:9190", &host, &port);
  EXPECT_EQ(host, "127.0.0.1");
  EXPECT_EQ(port, 9190);
  SplitHostPort("listen", "[::1]:0", &host, &port);
  EXPECT_EQ(host, "[::1]");
  EXPECT_EQ(port, 0);
  for (const char* bad : {"nohost", ":80", "host:", "host:http", "host:70000"}) {
    EXPECT_EQ(ErrorOf([&] { SplitHostPort("tracker", bad, &host, &port); }),
              std::string("--tracker '") + bad + "': expected HOST:PORT");
  }
}

}  // namespace
}  // namespace fleet
}  // namespace tessera
