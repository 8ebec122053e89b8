// Device servers end to end: sessions through the tracker, uploads into the sandbox, modules,
// arrays, calls and timing in the worker process, grant checks, crash isolation, device loss.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstring>
#include <thread>

#include "fleet/client/remote_session.h"
#include "tests/integration/fleet_fixture.h"
#include "tests/integration/session_helpers.h"

namespace tessera {
namespace {

using fleet::FleetError;
using fleet::FleetErrorCode;
using fleet::RemoteArg;
using fleet::RemoteSession;
using testing::Fleet;
using testing::WaitFor;

const char* kKernels = "tests/integration/kernels/libtest_kernels.so";

using testing::ExpectAddOneRoundTrip;
using testing::Failure;
using testing::ForKey;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

bool Exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

TEST(RpcServerTest, UploadLoadCallTimeAndClose) {
  Fleet fleet;
  fleet.AddServer("cpu");
  auto client = fleet.Client();
  auto session = RemoteSession::Open(client, ForKey("cpu"));
  const std::string address = session->grant().server_address();
  EXPECT_EQ(fleet.StateOf(address), "busy");
  session->UploadFile("lib/kernels.so", kKernels);
  int64_t module = session->LoadModule("lib/kernels.so");

  const auto [in, out] = ExpectAddOneRoundTrip(*session, module);

  int64_t x = session->AllocArray({3}, "float32");
  int64_t y = session->AllocArray({3}, "float32");
  float xs[3] = {1.5f, -2.0f, 4.0f};
  session->CopyIn(x, xs, sizeof(xs));
  session->Call(module, "scale_f32",
                {RemoteArg::Array(x), RemoteArg::Array(y), RemoteArg::Float(2.0)});
  float ys[3];
  session->CopyOut(y, ys, sizeof(ys));
  EXPECT_FLOAT_EQ(ys[0], 3.0f);
  EXPECT_FLOAT_EQ(ys[1], -4.0f);
  EXPECT_FLOAT_EQ(ys[2], 8.0f);

  std::vector<double> seconds =
      session->Time(module, "add_one_u8", {RemoteArg::Array(in), RemoteArg::Array(out)}, 5, 3);
  ASSERT_EQ(seconds.size(), 3u);
  for (double s : seconds) EXPECT_GT(s, 0.0);
  // Cold arguments (a kernel's weights as a model reads them): evicted on the device before
  // every call; an index that names no array is the call's failure, said by the device.
  std::vector<double> cold = session->Time(
      module, "add_one_u8", {RemoteArg::Array(in), RemoteArg::Array(out)}, 5, 3, 0, {0});
  ASSERT_EQ(cold.size(), 3u);
  for (double s : cold) EXPECT_GT(s, 0.0);
  FleetError evict = Failure([&] {
    session->Time(module, "add_one_u8", {RemoteArg::Array(in), RemoteArg::Array(out)}, 1, 1, 0,
                  {2});
  });
  EXPECT_EQ(evict.code(), FleetErrorCode::kCallFailed);
  EXPECT_TRUE(Contains(evict.what(), "cannot evict argument 2: the call has 2 arguments"))
      << evict.what();

  FleetError failed = Failure([&] { session->Call(module, "fail_politely", {}); });
  EXPECT_EQ(failed.code(), FleetErrorCode::kCallFailed);
  EXPECT_TRUE(Contains(failed.what(), "fail_politely: this kernel always fails")) << failed.what();
  FleetError missing = Failure([&] { session->Call(module, "no_such_kernel", {}); });
  EXPECT_TRUE(Contains(missing.what(), "has no function 'no_such_kernel'")) << missing.what();
  FleetError dtype = Failure([&] { session->AllocArray({2}, "quaternion"); });
  EXPECT_EQ(dtype.code(), FleetErrorCode::kInvalidArgument);
  EXPECT_TRUE(Contains(dtype.what(), "'quaternion' is not a data type")) << dtype.what();
  std::vector<uint8_t> result(32);
  FleetError size = Failure([&] { session->CopyOut(out, result.data(), 31); });
  EXPECT_TRUE(Contains(size.what(), "has 32 bytes, not 31")) << size.what();
  FleetError negative = Failure([&] { session->AllocArray({2, -1}, "float32"); });
  EXPECT_TRUE(Contains(negative.what(), "array dimension -1 is negative")) << negative.what();

  std::string sandbox = fleet.WorkdirOf(address) + "/session-" + session->grant().session_id();
  EXPECT_TRUE(Exists(sandbox + "/lib/kernels.so"));
  session->Close();
  EXPECT_FALSE(Exists(sandbox));
  EXPECT_TRUE(WaitFor([&] { return fleet.StateOf(address) == "free"; }, 5000));
}

TEST(RpcServerTest, CrashingAndHangingKernelsBecomeErrorsAndTheServerGoesOn) {
  Fleet fleet;
  fleet.AddServer("cpu");
  auto client = fleet.Client();
  {
    auto session = RemoteSession::Open(client, ForKey("cpu"));
    session->UploadFile("k.so", kKernels);
    int64_t module = session->LoadModule("k.so");
    int64_t in = session->AllocArray({16}, "uint8");
    int64_t out = session->AllocArray({16}, "uint8");

    FleetError segv = Failure([&] { session->Call(module, "segfault", {}); });
    EXPECT_EQ(segv.code(), FleetErrorCode::kCallFailed);
    EXPECT_TRUE(Contains(segv.what(), "function 'segfault' crashed the worker process: signal 11"))
        << segv.what();
    // The session goes on: a fresh worker gets the module and arrays back.
    session->Call(module, "add_one_u8", {RemoteArg::Array(in), RemoteArg::Array(out)});
    uint8_t result[16];
    session->CopyOut(out, result, sizeof(result));
    EXPECT_EQ(result[5], 1);

    FleetError abort = Failure([&] { session->Call(module, "abort_now", {}); });
    EXPECT_TRUE(Contains(abort.what(), "signal 6")) << abort.what();

    FleetError hang = Failure([&] { session->Time(module, "spin_forever", {}, 1, 1); });
    EXPECT_EQ(hang.code(), FleetErrorCode::kCallFailed);
    EXPECT_TRUE(Contains(hang.what(),
                         "did not finish within 2500 ms; the worker process was "
                         "killed"))
        << hang.what();
  }
  // The next session on the same server works.
  auto next = RemoteSession::Open(client, ForKey("cpu"));
  next->UploadFile("k.so", kKernels);
  int64_t module = next->LoadModule("k.so");
  int64_t in = next->AllocArray({2}, "uint8");
  next->Call(module, "add_one_u8", {RemoteArg::Array(in), RemoteArg::Array(in)});
}

TEST(RpcServerTest, UnsafeAndOversizedUploadsAreRefused) {
  Fleet fleet;
  fleet.AddServer("cpu");
  auto session = RemoteSession::Open(fleet.Client(), ForKey("cpu"));
  const std::string outside = testing::MakeTempDir("outside");
  for (const std::string name : {"../x", "/etc/x", "a/../../x", "./x", ""}) {
    FleetError refused = Failure([&] { session->Upload(name, "data"); });
    EXPECT_EQ(refused.code(), FleetErrorCode::kPermissionDenied) << name << ": " << refused.what();
    EXPECT_TRUE(Contains(refused.what(), "refused name '" + name + "'")) << refused.what();
  }
  // A link planted in the sandbox (as a compromised earlier step might) is never followed.
  std::string sandbox = fleet.WorkdirOf(session->grant().server_address()) + "/session-" +
                        session->grant().session_id();
  ASSERT_EQ(symlink(outside.c_str(), (sandbox + "/dir_link").c_str()), 0);
  ASSERT_EQ(symlink((outside + "/file").c_str(), (sandbox + "/file_link").c_str()), 0);
  FleetError through_dir = Failure([&] { session->Upload("dir_link/x", "data"); });
  EXPECT_EQ(through_dir.code(), FleetErrorCode::kPermissionDenied);
  EXPECT_TRUE(Contains(through_dir.what(), "'dir_link' is not a plain directory"))
      << through_dir.what();
  FleetError onto_link = Failure([&] { session->Upload("file_link", "data"); });
  EXPECT_TRUE(Contains(onto_link.what(), "it is a symbolic link")) << onto_link.what();
  FleetError load_link = Failure([&] { session->LoadModule("dir_link/x"); });
  EXPECT_EQ(load_link.code(), FleetErrorCode::kPermissionDenied);
  EXPECT_FALSE(Exists(outside + "/x"));
  EXPECT_FALSE(Exists(outside + "/file"));

  FleetError big = Failure([&] { session->Upload("big.bin", std::string(2 << 20, 'x')); });
  EXPECT_EQ(big.code(), FleetErrorCode::kResourceExhausted);
  EXPECT_TRUE(Contains(big.what(), "upload 'big.bin' exceeds the limit of 1048576 bytes"))
      << big.what();
  EXPECT_FALSE(Exists(sandbox + "/big.bin"));
  session->Upload("small.bin", std::string(1000, 'x'));  // within the limit
}

TEST(RpcServerTest, ForgedAndReplayedGrantsAreRefused) {
  testing::FleetConfig config;
  config.token = "fleet-secret";
  Fleet fleet(config);
  fleet.AddServer("cpu");
  auto client = fleet.Client();
  tracker::v1::SessionReply reply = client->RequestSession(ForKey("cpu"));
  const tracker::v1::Grant grant = reply.grant();

  tracker::v1::Grant extended = grant;
  extended.set_expires_unix_ms(grant.expires_unix_ms() + 3600 * 1000);
  FleetError forged = Failure([&] { RemoteSession(nullptr, extended, 0); });
  EXPECT_EQ(forged.code(), FleetErrorCode::kPermissionDenied);
  EXPECT_TRUE(Contains(forged.what(), "grant refused: bad signature")) << forged.what();

  tracker::v1::Grant made_up = grant;
  made_up.set_session_id("00112233445566778899aabbccddeeff");
  FleetError invented = Failure([&] { RemoteSession(nullptr, made_up, 0); });
  EXPECT_TRUE(Contains(invented.what(), "grant refused: bad signature")) << invented.what();

  { RemoteSession genuine(nullptr, grant, 0); }  // the real one opens (and closes)
  FleetError replayed = Failure([&] { RemoteSession(nullptr, grant, 0); });
  EXPECT_EQ(replayed.code(), FleetErrorCode::kPermissionDenied);
  EXPECT_TRUE(Contains(replayed.what(), "grant refused: already used (a replayed grant)"))
      << replayed.what();
  client->ReleaseSession(grant.session_id());

  // A client without the token gets nothing from the tracker in the first place.
  fleet::TrackerOptions anonymous;
  anonymous.address = fleet.tracker_address();
  fleet::TrackerClient stranger(anonymous);
  FleetError refused = Failure([&] { stranger.RequestSession(ForKey("cpu")); });
  EXPECT_EQ(refused.code(), FleetErrorCode::kUnauthenticated);
}

TEST(RpcServerTest, KilledServerIsReportedLostWhileOtherSessionsGoOn) {
  Fleet fleet;
  fleet.AddServer("cpu");
  fleet.AddServer("cpu");
  auto client = fleet.Client();
  auto doomed = RemoteSession::Open(client, ForKey("cpu"));
  auto survivor = RemoteSession::Open(client, ForKey("cpu"));
  ASSERT_NE(doomed->grant().server_address(), survivor->grant().server_address());
  doomed->UploadFile("k.so", kKernels);
  int64_t module = doomed->LoadModule("k.so");
  int64_t array = doomed->AllocArray({8}, "uint8");

  const std::string address = doomed->grant().server_address();
  fleet.ServerAt(address)->Stop(SIGKILL);
  FleetError lost = Failure([&] {
    doomed->Call(module, "add_one_u8", {RemoteArg::Array(array), RemoteArg::Array(array)});
  });
  EXPECT_EQ(lost.code(), FleetErrorCode::kDeviceLost);
  EXPECT_TRUE(Contains(lost.what(), "device lost")) << lost.what();
  // Every later call fails fast the same way, and the tracker declares the server dead within
  // the lease timeout (2.5 s here).
  EXPECT_TRUE(WaitFor([&] { return fleet.StateOf(address) == "dead"; }, 10000));
  FleetError again = Failure([&] { doomed->AllocArray({1}, "uint8"); });
  EXPECT_EQ(again.code(), FleetErrorCode::kDeviceLost);

  // A server restarted on the same work directory first removes what the killed one left.
  const std::string workdir = fleet.WorkdirOf(address);
  const std::string stale = workdir + "/session-" + doomed->grant().session_id();
  EXPECT_TRUE(Exists(stale + "/k.so"));
  fleet.AddServer("cpu", workdir);
  EXPECT_FALSE(Exists(stale));

  survivor->UploadFile("k.so", kKernels);
  int64_t other = survivor->LoadModule("k.so");
  int64_t in = survivor->AllocArray({4}, "uint8");
  survivor->Call(other, "add_one_u8", {RemoteArg::Array(in), RemoteArg::Array(in)});
  uint8_t result[4];
  survivor->CopyOut(in, result, sizeof(result));
  EXPECT_EQ(result[3], 1);
}

// A server that cannot start its call worker (as under qemu-aarch64 without a worker script)
// refuses to register, saying why and what to pass, instead of failing every call.
TEST(RpcServerTest, AServerWhoseWorkerCannotStartRefusesToRegister) {
  const std::string dir = testing::MakeTempDir("worker-probe");
  const std::string failing = dir + "/exits-127.sh";
  testing::WriteFile(failing, "#!/bin/sh\nexit 127\n");
  chmod(failing.c_str(), 0755);
  const std::string not_executable = dir + "/not-executable";
  testing::WriteFile(not_executable, "#!/bin/sh\n");
  chmod(not_executable.c_str(), 0644);
  struct Case {
    std::string worker, why;
  };
  for (const Case& c :
       {Case{failing, "exit status 127"},
        Case{not_executable, "cannot execute '" + not_executable + "': Permission denied"}}) {
    std::string output;
    // The tracker's address is never contacted: the probe comes first.
    const int status = testing::RunCommand(
        "timeout -s KILL 30 rpc_server/tessera-rpc-server --tracker 127.0.0.1:9 --key cpu "
        "--worker-executable " +
            c.worker + " --workdir " + dir + "/work 2>&1",
        &output);
    EXPECT_EQ(status, 2) << output;
    EXPECT_TRUE(Contains(output,
                         "not registering: no call could be served, the worker process "
                         "did not start: " +
                             c.why))
        << output;
    EXPECT_TRUE(Contains(output, "pass --worker-executable SCRIPT")) << output;
  }
}

// A worker that stops starting after registration: the client's error and the server's log say
// why and what to pass, not "a kernel crashed".
TEST(RpcServerTest, AWorkerThatCannotStartIsReportedToTheClient) {
  const std::string dir = testing::MakeTempDir("worker-breaks");
  char server[PATH_MAX];
  ASSERT_NE(realpath("rpc_server/tessera-rpc-server", server), nullptr);
  const std::string worker = dir + "/worker.sh";
  testing::WriteFile(
      worker, "#!/bin/sh\n[ -e " + dir + "/broken ] && exit 127\nexec " + server + " \"$@\"\n");
  chmod(worker.c_str(), 0755);
  testing::FleetConfig config;
  config.server_flags.push_back("--worker-executable");
  config.server_flags.push_back(worker);
  Fleet fleet(config);
  fleet.AddServer("cpu");
  testing::WriteFile(dir + "/broken", "");
  auto session = RemoteSession::Open(fleet.Client(), ForKey("cpu"));
  session->UploadFile("k.so", kKernels);
  FleetError failed = Failure([&] { session->LoadModule("k.so"); });
  EXPECT_TRUE(Contains(failed.what(), "the worker process did not start: exit status 127"))
      << failed.what();
  EXPECT_TRUE(Contains(failed.what(), "pass --worker-executable SCRIPT")) << failed.what();
}

TEST(RpcServerTest, QuarterGigabyteArrayRoundTrip) {
  testing::FleetConfig config;
  // Touching 512 MB of fresh pages takes a while on a loaded machine.
  config.server_flags = {"--call-timeout-ms", "30000"};
  Fleet fleet(config);
  fleet.AddServer("cpu");
  auto session = RemoteSession::Open(fleet.Client(), ForKey("cpu"));
  session->UploadFile("k.so", kKernels);
  int64_t module = session->LoadModule("k.so");
  const size_t n = 256u << 20;
  std::vector<uint8_t> data(n);
  uint64_t state = 88172645463325252ull;
  for (size_t i = 0; i < n; ++i) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    data[i] = static_cast<uint8_t>(state);
  }
  auto checksum = [](const std::vector<uint8_t>& bytes, int add) {
    uint64_t h = 1469598103934665603ull;  // FNV-1a
    for (uint8_t b : bytes) h = (h ^ static_cast<uint8_t>(b + add)) * 1099511628211ull;
    return h;
  };
  const uint64_t expected = checksum(data, 1);
  int64_t in = session->AllocArray({static_cast<int64_t>(n)}, "uint8");
  int64_t out = session->AllocArray({static_cast<int64_t>(n)}, "uint8");
  session->CopyIn(in, data.data(), n);
  session->Call(module, "add_one_u8", {RemoteArg::Array(in), RemoteArg::Array(out)});
  std::vector<uint8_t> back(n);
  session->CopyOut(out, back.data(), n);
  EXPECT_EQ(checksum(back, 0), expected);
  session->CopyOut(in, back.data(), n);
  EXPECT_EQ(checksum(back, 1), expected);
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

TEST(RpcServerSessionTest, SessionEndsWhenTheClientDisappears) {
  Fleet fleet;
  fleet.AddServer("cpu");
  auto client = fleet.Client();
  tracker::v1::SessionReply reply = client->RequestSession(ForKey("cpu"));
  // A client that opens the session and then stops renewing it (as a crashed tuner would).
  RemoteSession silent(nullptr, reply.grant(), 0);
  const std::string address = reply.grant().server_address();
  EXPECT_EQ(fleet.StateOf(address), "busy");
  ASSERT_TRUE(WaitFor([&] { return fleet.StateOf(address) == "free"; }, 10000));
  // The tracker told the server, which closed the session.
  EXPECT_TRUE(WaitFor(
      [&] {
        try {
          silent.AllocArray({1}, "uint8");
          return false;
        } catch (const FleetError& e) {
          return e.code() == FleetErrorCode::kSessionEnded;
        }
      },
      2000));
  // The server serves the next client.
  auto next = RemoteSession::Open(client, ForKey("cpu"));
  next->AllocArray({1}, "uint8");
}

TEST(RpcServerSessionTest, SessionEndsAtItsWallClockLimit) {
  Fleet fleet;
  fleet.AddServer("cpu");
  fleet::SessionOptions options = ForKey("cpu");
  options.session_limit_ms = 2000;
  const auto asked = std::chrono::steady_clock::now();
  auto session = RemoteSession::Open(fleet.Client(), options);
  session->AllocArray({1}, "uint8");
  // Calls go on until the session ends, which is not before its limit.
  FleetErrorCode code = FleetErrorCode::kInternal;
  std::string why;
  ASSERT_TRUE(WaitFor(
      [&] {
        try {
          session->AllocArray({1}, "uint8");
          return false;
        } catch (const FleetError& e) {
          code = e.code();
          why = e.what();
          return true;
        }
      },
      10000))
      << "the session outlived its limit by 8 s";
  const auto ended = std::chrono::steady_clock::now();
  EXPECT_EQ(code, FleetErrorCode::kSessionEnded) << why;
  // The limit runs from the grant, which comes after `asked` (a millisecond's rounding aside).
  EXPECT_GE(std::chrono::duration_cast<std::chrono::milliseconds>(ended - asked).count(), 1999)
      << "the session ended before its limit: " << why;
}

TEST(RpcServerSessionTest, OpenSessionSurvivesATrackerRestart) {
  std::string state = testing::MakeTempDir("restart-state");
  testing::FleetConfig config;
  // The default lease (10 s), not the fixture's 2.5 s: on a loaded machine the client's first
  // renewal after the restart can come later than 2.5 s after the server re-registered (the
  // client reconnects with backoff), and this test is about adoption, not about expiry.
  config.tracker_flags = {"--heartbeat-ms", "200", "--state", state};
  Fleet fleet(config);
  fleet.AddServer("cpu");
  auto session = RemoteSession::Open(fleet.Client(), ForKey("cpu"));
  session->UploadFile("k.so", kKernels);
  int64_t module = session->LoadModule("k.so");
  int64_t array = session->AllocArray({4}, "uint8");
  fleet.RestartTracker();
  // The server re-registers with its open session, which the new tracker adopts.
  ASSERT_TRUE(
      WaitFor([&] { return fleet.StateOf(session->grant().server_address()) == "busy"; }, 5000));
  // Keepalives go on: the new tracker accepts a renewal sent after it adopted the session (the
  // second from now; the first may have been on its way before).
  const int renewed = session->keepalives();
  ASSERT_TRUE(WaitFor([&] { return session->keepalives() >= renewed + 2; }, 10000))
      << "no renewal was accepted after the restart";
  session->Call(module, "add_one_u8", {RemoteArg::Array(array), RemoteArg::Array(array)});
  uint8_t result[4];
  session->CopyOut(array, result, sizeof(result));
  EXPECT_EQ(result[0], 1);
  const std::string address = session->grant().server_address();
  session->Close();
  EXPECT_TRUE(WaitFor([&] { return fleet.StateOf(address) == "free"; }, 3000));
}

}  // namespace
}  // namespace tessera
