// A device server behind NAT (`--dial-out`): it listens on no port, and its sessions go through
// the tracker's relay with the same grants, server proof, sandbox and limits as direct ones.
#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fleet/client/remote_session.h"
#include "fleet/secrets.h"
#include "proto/grant.h"
#include "tests/integration/fleet_fixture.h"
#include "tests/integration/session_helpers.h"

namespace tessera {
namespace {

using fleet::FleetError;
using fleet::FleetErrorCode;
using fleet::RemoteArg;
using fleet::RemoteSession;
using testing::Fleet;
using testing::FleetConfig;

const char* kKernels = "tests/integration/kernels/libtest_kernels.so";

using testing::ExpectAddOneRoundTrip;
using testing::Failure;
using testing::ForKey;

// TCP sockets of process `pid` in the LISTEN state (from /proc/net/tcp and tcp6).
int ListeningSockets(pid_t pid) {
  std::set<std::string> inodes;
  const std::string fd_dir = "/proc/" + std::to_string(pid) + "/fd";
  if (DIR* dir = opendir(fd_dir.c_str())) {
    while (dirent* entry = readdir(dir)) {
      char target[256] = {0};
      const std::string link = fd_dir + "/" + entry->d_name;
      ssize_t n = readlink(link.c_str(), target, sizeof(target) - 1);
      std::string text(target, n > 0 ? static_cast<size_t>(n) : 0);
      if (text.rfind("socket:[", 0) == 0) inodes.insert(text.substr(8, text.size() - 9));
    }
    closedir(dir);
  }
  int listening = 0;
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
      fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >>
          timeout >> inode;
      if (state == "0A" && inodes.count(inode) != 0) ++listening;
    }
  }
  return listening;
}

FleetConfig WithToken() {
  FleetConfig config;
  config.token = "dial-out-test-token";
  return config;
}

TEST(DialOutTest, AServerOnNoPortRunsASessionThroughTheTracker) {
  Fleet fleet(WithToken());
  testing::Daemon& server = fleet.AddDialOutServer("nat");
  EXPECT_EQ(server.address().rfind("relay:", 0), 0u) << server.address();
  EXPECT_EQ(ListeningSockets(server.pid()), 0) << "a dial-out server must listen on no port";
  // A direct server listens (the check above can tell).
  EXPECT_GT(ListeningSockets(fleet.AddServer("direct").pid()), 0);

  auto session = RemoteSession::Open(fleet.Client(), ForKey("nat"));
  EXPECT_EQ(session->grant().server_address(), server.address());
  session->UploadFile("lib/kernels.so", kKernels);
  int64_t module = session->LoadModule("lib/kernels.so");
  const auto [in, out] = ExpectAddOneRoundTrip(*session, module);
  std::vector<double> seconds =
      session->Time(module, "add_one_u8", {RemoteArg::Array(in), RemoteArg::Array(out)}, 5, 3);
  ASSERT_EQ(seconds.size(), 3u);
  for (double s : seconds) EXPECT_GT(s, 0.0);

  // Large arrays go over several parallel streams, each relayed.
  const size_t big = 40u << 20;
  std::vector<uint8_t> bytes(big), back(big);
  for (size_t i = 0; i < big; ++i) bytes[i] = static_cast<uint8_t>(i * 13 + 5);
  int64_t array = session->AllocArray({static_cast<int64_t>(big)}, "uint8");
  session->CopyIn(array, bytes.data(), big);
  session->CopyOut(array, back.data(), big);
  EXPECT_TRUE(bytes == back);

  // The device's own checks come back through the relay unchanged.
  FleetError failed = Failure([&] { session->Call(module, "fail_politely", {}); });
  EXPECT_EQ(failed.code(), FleetErrorCode::kCallFailed) << failed.what();
  FleetError limit = Failure([&] { session->Upload("huge.bin", std::string(2 << 20, 'x')); });
  EXPECT_EQ(limit.code(), FleetErrorCode::kResourceExhausted) << limit.what();

  const std::string sandbox =
      fleet.WorkdirOf(server.address()) + "/session-" + session->grant().session_id();
  struct stat st;
  EXPECT_EQ(stat((sandbox + "/lib/kernels.so").c_str(), &st), 0);
  session->Close();
  EXPECT_NE(stat(sandbox.c_str(), &st), 0);
  EXPECT_TRUE(testing::WaitFor([&] { return fleet.StateOf(server.address()) == "free"; }, 5000));
}

TEST(DialOutTest, ItsDeathMidSessionIsADeviceLost) {
  Fleet fleet(WithToken());
  testing::Daemon& server = fleet.AddDialOutServer("nat");
  auto session = RemoteSession::Open(fleet.Client(), ForKey("nat"));
  session->UploadFile("k.so", kKernels);
  int64_t module = session->LoadModule("k.so");
  int64_t in = session->AllocArray({16}, "uint8");
  int64_t out = session->AllocArray({16}, "uint8");
  session->Call(module, "add_one_u8", {RemoteArg::Array(in), RemoteArg::Array(out)});
  server.Stop(SIGKILL);
  FleetError lost = Failure([&] {
    session->Call(module, "add_one_u8", {RemoteArg::Array(in), RemoteArg::Array(out)});
  });
  EXPECT_EQ(lost.code(), FleetErrorCode::kDeviceLost) << lost.what();
  // Off its relay, the server is granted to nobody else (before its lease runs out, too).
  session.reset();
  EXPECT_TRUE(testing::WaitFor(
      [&] {
        const std::string state = fleet.StateOf(server.address());
        return state == "detached" || state == "dead";
      },
      5000));
}

TEST(DialOutTest, ForgedGrantsAreRefused) {
  Fleet fleet(WithToken());
  testing::Daemon& server = fleet.AddDialOutServer("nat");
  auto client = fleet.Client();
  const std::string server_id = server.address().substr(std::string("relay:").size());

  // A grant the tracker never issued names no open session: the relay forwards nothing.
  tracker::v1::Grant invented;
  invented.set_session_id(fleet::RandomHexId());
  invented.set_key("nat");
  invented.set_server_id(server_id);
  invented.set_server_address(server.address());
  invented.set_expires_unix_ms(fleet::UnixMillis() + 60000);
  fleet::SignGrant(fleet::GrantKeyFromToken("not-the-token"), &invented);
  FleetError refused = Failure([&] { RemoteSession session(client, invented, 0); });
  EXPECT_EQ(refused.code(), FleetErrorCode::kPermissionDenied) << refused.what();
  EXPECT_NE(std::string(refused.what()).find("relay refused: no open session"), std::string::npos)
      << refused.what();

  // A real session's grant, altered (a longer life), fails the server's own signature check.
  tracker::v1::SessionReply reply = client->RequestSession(ForKey("nat"));
  tracker::v1::Grant altered = reply.grant();
  altered.set_expires_unix_ms(altered.expires_unix_ms() + 3600000);
  FleetError forged = Failure([&] { RemoteSession session(client, altered, 0); });
  EXPECT_EQ(forged.code(), FleetErrorCode::kPermissionDenied) << forged.what();
  EXPECT_NE(std::string(forged.what()).find("grant refused: bad signature"), std::string::npos)
      << forged.what();
  // The genuine grant still opens it, and the server proves itself through the relay.
  RemoteSession genuine(client, reply.grant(), 0, reply.server_proof_key());
  EXPECT_GT(genuine.AllocArray({4}, "float32"), 0);
}

TEST(DialOutTest, TheServerAttachesAgainAfterATrackerRestart) {
  Fleet fleet(WithToken());
  testing::Daemon& server = fleet.AddDialOutServer("nat");
  fleet.RestartTracker();
  ASSERT_TRUE(testing::WaitFor([&] { return fleet.StateOf(server.address()) == "free"; }, 10000));
  // "free" means registered and attached again: the tracker grants it only then.
  auto session = RemoteSession::Open(fleet.Client(), ForKey("nat"));
  EXPECT_GT(session->AllocArray({8}, "float32"), 0);
}

TEST(DialOutTest, ABoardDialsATlsTracker) {
  const std::string dir = testing::MakeTempDir("dial-out-tls");
  testing::WriteSelfSignedCertificate(dir);
  testing::WriteFile(dir + "/token", "tls-token");
  testing::Daemon tracker("tracker/tessera-tracker",
                          {"--listen", "127.0.0.1:0", "--tls-cert", dir + "/cert.pem", "--tls-key",
                           dir + "/key.pem", "--token-file", dir + "/token"});
  testing::Daemon server(
      "rpc_server/tessera-rpc-server",
      {"--tracker", tracker.address(), "--key", "nat", "--dial-out", "--tls-ca", dir + "/cert.pem",
       "--token-file", dir + "/token", "--workdir", dir + "/server"});
  fleet::TrackerOptions options;
  options.address = tracker.address();
  options.token = "tls-token";
  options.tls_ca_file = dir + "/cert.pem";
  auto client = std::make_shared<fleet::TrackerClient>(options);
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        const tracker::v1::FleetStatus fleet = client->Status();
        for (const auto& status : fleet.servers()) {
          if (status.address() == server.address()) return status.state() == "free";
        }
        return false;
      },
      10000));
  // The device calls go to the tracker over TLS too.
  auto session = RemoteSession::Open(client, ForKey("nat"));
  int64_t array = session->AllocArray({4}, "float32");
  float in[4] = {1, 2, 3, 4}, back[4] = {0, 0, 0, 0};
  session->CopyIn(array, in, sizeof(in));
  session->CopyOut(array, back, sizeof(back));
  EXPECT_EQ(back[3], 4.0f);
}

}  // namespace
}  // namespace tessera
