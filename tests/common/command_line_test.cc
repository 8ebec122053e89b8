#include "common/command_line.h"

#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include "common/error.h"

namespace tessera {
namespace {

struct Outcome {
  int status;
  std::string out, err;
};

// Runs a program with one subcommand `go` whose action throws what `action` throws.
Outcome RunProgram(std::vector<const char*> args, const std::function<void()>& action) {
  CLI::App app{"test program", "prog"};
  app.require_subcommand(1);
  CLI::App* go = app.add_subcommand("go", "runs the action");
  int n = 0;
  go->add_option("--n", n, "a number")->check(Positive());
  go->callback(action);
  args.insert(args.begin(), "prog");
  std::ostringstream out, err;
  int status = RunCommandLine(app, static_cast<int>(args.size()), args.data(), out, err);
  return {status, out.str(), err.str()};
}

TEST(CommandLineTest, MapsEachKindOfErrorToItsExitStatus) {
  EXPECT_EQ(RunProgram({"go"}, [] {}).status, kExitOk);
  Outcome user = RunProgram({"go"}, [] { throw UserError("workload 'x': unknown template"); });
  EXPECT_EQ(user.status, 2);
  EXPECT_EQ(user.err, "error: workload 'x': unknown template\n");
  EXPECT_EQ(RunProgram({"go"}, [] { throw ConfigError("bad token file"); }).status, 2);
  Outcome external = RunProgram({"go"}, [] { throw ExternalError("tracker unreachable"); });
  EXPECT_EQ(external.status, 1);
  EXPECT_EQ(external.err, "error: tracker unreachable\n");
  Outcome internal = RunProgram({"go"}, [] { TESSERA_INTERNAL_CHECK(false) << "oops"; });
  EXPECT_EQ(internal.status, 70);
  EXPECT_EQ(internal.err.rfind("internal error: ", 0), 0u) << internal.err;
  Outcome other = RunProgram({"go"}, [] { throw std::out_of_range("vector"); });
  EXPECT_EQ(other.status, 70);
  EXPECT_EQ(other.err, "internal error: vector\n");
  Outcome quiet = RunProgram({"go"}, [] { throw CLI::RuntimeError(1); });
  EXPECT_EQ(quiet.status, 1);
  EXPECT_EQ(quiet.err, "");
}

TEST(CommandLineTest, BadFlagsAreUserErrorsAndHelpSucceeds) {
  Outcome unknown = RunProgram({"go", "--colour", "red"}, [] {});
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("--colour"), std::string::npos) << unknown.err;
  EXPECT_EQ(RunProgram({"go", "--n", "-3"}, [] {}).status, 2);
  EXPECT_EQ(RunProgram({}, [] {}).status, 2);  // a subcommand is required
  Outcome help = RunProgram({"go", "--help"}, [] { FAIL() << "help runs nothing"; });
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("--n"), std::string::npos) << help.out;
}

TEST(CommandLineTest, SplitsHostAndPort) {
  std::string host;
  int port = 0;
  SplitHostPort("listen", "127.0.0.1:9190", &host, &port);
  EXPECT_EQ(host, "127.0.0.1");
  EXPECT_EQ(port, 9190);
  SplitHostPort("listen", "[::1]:0", &host, &port);
  EXPECT_EQ(host, "[::1]");
  EXPECT_EQ(port, 0);
  for (const char* bad : {"nohost", ":80", "host:", "host:http", "host:70000"}) {
    try {
      SplitHostPort("tracker", bad, &host, &port);
      FAIL() << bad;
    } catch (const ConfigError& e) {
      EXPECT_EQ(std::string(e.what()), std::string("--tracker '") + bad + "': expected HOST:PORT");
    }
  }
}

}  // namespace
}  // namespace tessera
