// One port, one process: a daemon refuses a port another process listens on (gRPC would share
// it), and rpc_servers started without --listen pick ports of their own.
#include <gtest/gtest.h>

#include <string>

#include "fleet/client/tracker_client.h"
#include "tests/integration/daemon.h"

namespace tessera {
namespace {

using testing::Daemon;
using testing::RunCommand;
using testing::WaitFor;

const char* kTracker = "tracker/tessera-tracker";
const char* kServer = "rpc_server/tessera-rpc-server";

// Runs `command` bounded in time (a daemon that wrongly starts would otherwise run on).
int RunBounded(const std::string& command, std::string* output) {
  return RunCommand("timeout 20 " + command + " 2>&1", output);
}

TEST(PortTest, TrackerRefusesATakenPort) {
  Daemon first(kTracker, {"--listen", "127.0.0.1:0"});
  std::string output;
  int status = RunBounded(std::string(kTracker) + " --listen " + first.address(), &output);
  EXPECT_EQ(status, 2) << output;
  EXPECT_NE(output.find("cannot listen on '" + first.address() + "': port " +
                        std::to_string(first.port()) + " is already in use by another process"),
            std::string::npos)
      << output;
}

TEST(PortTest, RpcServerRefusesATakenPort) {
  Daemon tracker(kTracker, {"--listen", "127.0.0.1:0"});
  std::string workdir = testing::MakeTempDir("port-taken");
  std::string output;
  // The port is the tracker's: any process holding it must keep it to itself.
  int status = RunBounded(std::string(kServer) + " --tracker " + tracker.address() +
                              " --key cpu --workdir " + workdir + " --listen " + tracker.address(),
                          &output);
  EXPECT_EQ(status, 2) << output;
  EXPECT_NE(output.find("port " + std::to_string(tracker.port()) +
                        " is already in use by another process"),
            std::string::npos)
      << output;
}

TEST(PortTest, ServersWithoutListenFlagBothRegister) {
  Daemon tracker(kTracker, {"--listen", "127.0.0.1:0"});
  Daemon one(kServer, {"--tracker", tracker.address(), "--key", "cpu", "--workdir",
                       testing::MakeTempDir("port-default-1")});
  Daemon two(kServer, {"--tracker", tracker.address(), "--key", "cpu", "--workdir",
                       testing::MakeTempDir("port-default-2")});
  EXPECT_NE(one.port(), two.port());
  EXPECT_EQ(one.address().rfind("127.0.0.1:", 0), 0u) << "a loopback tracker gets loopback servers";
  fleet::TrackerOptions options;
  options.address = tracker.address();
  fleet::TrackerClient client(options);
  auto free_servers = [&] {
    int free = 0;
    tracker::v1::FleetStatus status = client.Status();
    for (const auto& server : status.servers()) free += server.state() == "free";
    return free;
  };
  EXPECT_TRUE(WaitFor([&] { return free_servers() == 2; }, 10000));
}

}  // namespace
}  // namespace tessera
