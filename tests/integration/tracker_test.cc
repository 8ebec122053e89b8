// The tracker daemon end to end: queue order, deadlines, leases, the token, persistence across
// a restart, and `tessera fleet status`. Device servers are stand-ins that only hold a lease
// (TrackerLink); sessions on real servers are covered by rpc_server_test.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>

#include "fleet/client/tracker_client.h"
#include "rpc_server/tracker_link.h"
#include "tests/integration/daemon.h"

namespace tessera {
namespace {

using fleet::FleetError;
using fleet::FleetErrorCode;
using testing::Daemon;
using testing::WaitFor;

const char* kTracker = "tracker/tessera-tracker";

std::vector<std::string> FastLeases() {
  return {"--listen", "127.0.0.1:0", "--heartbeat-ms", "200", "--lease-timeout-ms", "2500"};
}

std::unique_ptr<fleet::TrackerLink> StandIn(const std::string& tracker, const std::string& key,
                                            const std::string& id, const std::string& token = "") {
  fleet::TrackerLinkOptions options;
  options.tracker = tracker;
  options.token = token;
  options.server_id = id;
  options.key = key;
  options.address = "127.0.0.1:" + std::to_string(10000 + std::hash<std::string>()(id) % 1000);
  options.info.set_arch("x86_64");
  options.info.set_cores(4);
  options.max_backoff_ms = 200;
  return std::make_unique<fleet::TrackerLink>(options, fleet::LinkCallbacks());
}

fleet::TrackerClient Client(const std::string& tracker, const std::string& token = "") {
  fleet::TrackerOptions options;
  options.address = tracker;
  options.token = token;
  options.retry_window_ms = 5000;
  return fleet::TrackerClient(options);
}

std::string ServerState(fleet::TrackerClient& client, const std::string& key) {
  tracker::v1::FleetStatus status = client.Status();
  for (const auto& server : status.servers()) {
    if (server.key() == key) return server.state();
  }
  return "absent";
}

int QueueLength(fleet::TrackerClient& client, const std::string& key) {
  tracker::v1::FleetStatus status = client.Status();
  for (const auto& queue : status.queues()) {
    if (queue.key() == key) return queue.length();
  }
  return 0;
}

TEST(TrackerTest, GrantsByPriorityThenArrivalAndExpiresDeadlines) {
  Daemon tracker(kTracker, FastLeases());
  auto server = StandIn(tracker.address(), "cpu", "s1");
  fleet::TrackerClient client = Client(tracker.address());
  ASSERT_TRUE(WaitFor([&] { return ServerState(client, "cpu") == "free"; }, 5000));

  fleet::SessionOptions hold;
  hold.key = "cpu";
  hold.queue_timeout_ms = 5000;
  std::string first = client.RequestSession(hold).grant().session_id();
  EXPECT_EQ(ServerState(client, "cpu"), "busy");

  std::mutex mu;
  std::vector<std::string> order;
  std::vector<std::thread> waiters;
  // Queued one after another so that arrival order is known: low, high, low2, high2.
  std::vector<std::pair<std::string, int>> queued = {
      {"low", 0}, {"high", 5}, {"low2", 0}, {"high2", 5}};
  for (size_t i = 0; i < queued.size(); ++i) {
    waiters.emplace_back([&, i] {
      fleet::SessionOptions options;
      options.key = "cpu";
      options.priority = queued[i].second;
      options.queue_timeout_ms = 10000;
      fleet::TrackerClient own = Client(tracker.address());
      std::string session = own.RequestSession(options).grant().session_id();
      {
        std::lock_guard<std::mutex> lock(mu);
        order.push_back(queued[i].first);
      }
      own.ReleaseSession(session);
    });
    ASSERT_TRUE(
        WaitFor([&] { return QueueLength(client, "cpu") == static_cast<int>(i + 1); }, 5000));
  }
  fleet::SessionOptions impatient;
  impatient.key = "cpu";
  impatient.queue_timeout_ms = 300;
  try {
    client.RequestSession(impatient);
    FAIL() << "expected a queue timeout";
  } catch (const FleetError& e) {
    EXPECT_EQ(e.code(), FleetErrorCode::kQueueTimeout);
    EXPECT_NE(std::string(e.what()).find("no server for key 'cpu' became free before the queue "
                                         "deadline (5 request(s) were waiting for that key)"),
              std::string::npos)
        << e.what();
  }
  client.ReleaseSession(first);
  for (auto& waiter : waiters) waiter.join();
  EXPECT_EQ(order, (std::vector<std::string>{"high", "high2", "low", "low2"}));
}

// Queues `queued` (name, priority, user) one by one behind a held server and returns the order
// in which they were granted once the server is released.
std::vector<std::string> GrantOrder(
    const std::string& tracker,
    const std::vector<std::tuple<std::string, int, std::string>>& queued) {
  fleet::TrackerClient client = Client(tracker);
  fleet::SessionOptions hold;
  hold.key = "cpu";
  hold.queue_timeout_ms = 5000;
  std::string first = client.RequestSession(hold).grant().session_id();
  std::mutex mu;
  std::vector<std::string> order;
  std::vector<std::thread> waiters;
  for (size_t i = 0; i < queued.size(); ++i) {
    waiters.emplace_back([&, i] {
      fleet::SessionOptions options;
      options.key = "cpu";
      options.priority = std::get<1>(queued[i]);
      options.user = std::get<2>(queued[i]);
      options.queue_timeout_ms = 10000;
      fleet::TrackerClient own = Client(tracker);
      std::string session = own.RequestSession(options).grant().session_id();
      {
        std::lock_guard<std::mutex> lock(mu);
        order.push_back(std::get<0>(queued[i]));
      }
      own.ReleaseSession(session);
    });
    EXPECT_TRUE(
        WaitFor([&] { return QueueLength(client, "cpu") == static_cast<int>(i + 1); }, 5000));
  }
  client.ReleaseSession(first);
  for (auto& waiter : waiters) waiter.join();
  return order;
}

TEST(TrackerTest, UsersShareFairlyAtEqualPriority) {
  Daemon tracker(kTracker, FastLeases());
  auto server = StandIn(tracker.address(), "cpu", "s1");
  fleet::TrackerClient client = Client(tracker.address());
  ASSERT_TRUE(WaitFor([&] { return ServerState(client, "cpu") == "free"; }, 5000));
  EXPECT_EQ(GrantOrder(tracker.address(), {{"a1", 1, "alice"},
                                           {"a2", 1, "alice"},
                                           {"a3", 1, "alice"},
                                           {"b1", 1, "bob"},
                                           {"b2", 1, "bob"},
                                           {"urgent", 9, "carol"}}),
            (std::vector<std::string>{"urgent", "a1", "b1", "a2", "b2", "a3"}));
}

TEST(TrackerTest, SeveralServersServeTheirOwnKeys) {
  Daemon tracker(kTracker, FastLeases());
  std::vector<std::unique_ptr<fleet::TrackerLink>> servers;
  servers.push_back(StandIn(tracker.address(), "arm", "a1"));
  servers.push_back(StandIn(tracker.address(), "arm", "a2"));
  servers.push_back(StandIn(tracker.address(), "x86", "x1"));
  fleet::TrackerClient client = Client(tracker.address());
  ASSERT_TRUE(WaitFor([&] { return client.Status().servers_size() == 3; }, 5000));
  std::mutex mu;
  std::condition_variable granted;
  int grants = 0;
  std::map<std::string, std::set<std::string>> servers_by_key;
  std::vector<std::thread> clients;
  for (int i = 0; i < 9; ++i) {
    clients.emplace_back([&, i] {
      fleet::SessionOptions options;
      options.key = i % 3 == 0 ? "x86" : "arm";
      options.queue_timeout_ms = 10000;
      fleet::TrackerClient own = Client(tracker.address());
      tracker::v1::Grant grant = own.RequestSession(options).grant();
      {
        std::unique_lock<std::mutex> lock(mu);
        EXPECT_EQ(grant.key(), options.key);
        servers_by_key[grant.key()].insert(grant.server_id());
        ++grants;
        granted.notify_all();
        // Nobody lets go before all three servers are held at once (each arm server once).
        EXPECT_TRUE(granted.wait_for(lock, std::chrono::seconds(10), [&] { return grants >= 3; }))
            << "the three servers were never held at once";
      }
      own.ReleaseSession(grant.session_id());
    });
  }
  for (auto& thread : clients) thread.join();
  EXPECT_EQ(servers_by_key["x86"], (std::set<std::string>{"x1"}));
  EXPECT_EQ(servers_by_key["arm"], (std::set<std::string>{"a1", "a2"}));
}

TEST(TrackerTest, SilentServerIsDeclaredDeadAndItsSessionReportsDeviceLost) {
  Daemon tracker(kTracker, FastLeases());
  auto server = StandIn(tracker.address(), "phone", "p1");
  fleet::TrackerClient client = Client(tracker.address());
  ASSERT_TRUE(WaitFor([&] { return ServerState(client, "phone") == "free"; }, 5000));
  fleet::SessionOptions options;
  options.key = "phone";
  options.queue_timeout_ms = 2000;
  std::string session = client.RequestSession(options).grant().session_id();
  server.reset();  // stops heartbeating, like a phone that rebooted
  // The client keeps renewing until the tracker tells it the device is gone.
  std::string lost;
  FleetErrorCode code = FleetErrorCode::kInternal;
  ASSERT_TRUE(WaitFor(
      [&] {
        try {
          client.KeepSession(session);
          return false;
        } catch (const FleetError& e) {
          lost = e.what();
          code = e.code();
          return true;
        }
      },
      10000));
  EXPECT_EQ(code, FleetErrorCode::kDeviceLost);
  EXPECT_NE(lost.find("device lost: server '"), std::string::npos) << lost;
  EXPECT_NE(lost.find("(key 'phone') missed heartbeats for 2500 ms"), std::string::npos) << lost;
  EXPECT_EQ(ServerState(client, "phone"), "dead");
}

TEST(TrackerTest, TokenIsRequiredWhenConfigured) {
  std::string dir = testing::MakeTempDir("token");
  testing::WriteFile(dir + "/token", "s3cret\n");
  std::vector<std::string> args = FastLeases();
  args.insert(args.end(), {"--token-file", dir + "/token"});
  Daemon tracker(kTracker, args);
  fleet::TrackerClient anonymous = Client(tracker.address());
  try {
    anonymous.Status();
    FAIL() << "expected refusal";
  } catch (const FleetError& e) {
    EXPECT_EQ(e.code(), FleetErrorCode::kUnauthenticated);
    EXPECT_NE(std::string(e.what()).find("missing token"), std::string::npos) << e.what();
  }
  fleet::TrackerClient wrong = Client(tracker.address(), "guess");
  EXPECT_THROW(wrong.Status(), FleetError);
  auto server = StandIn(tracker.address(), "cpu", "s1", "s3cret");
  fleet::TrackerClient client = Client(tracker.address(), "s3cret");
  EXPECT_TRUE(WaitFor([&] { return ServerState(client, "cpu") == "free"; }, 5000));
  // A server without the token never gets in: once the tracker has turned it away, it is not
  // in the fleet.
  auto intruder = StandIn(tracker.address(), "evil", "s2");
  ASSERT_TRUE(WaitFor([&] { return intruder->refusals() >= 1; }, 5000));
  EXPECT_EQ(ServerState(client, "evil"), "absent");
  EXPECT_EQ(intruder->registrations(), 0);
}

TEST(TrackerTest, RestartKeepsStateAndServersComeBack) {
  std::string state = testing::MakeTempDir("state");
  std::vector<std::string> args = FastLeases();
  args.insert(args.end(), {"--state", state});
  auto tracker = std::make_unique<Daemon>(kTracker, args);
  const std::string address = tracker->address();
  auto server = StandIn(address, "board", "b1");
  {
    fleet::TrackerClient client = Client(address);
    ASSERT_TRUE(WaitFor([&] { return ServerState(client, "board") == "free"; }, 5000));
  }
  EXPECT_EQ(tracker->Stop(SIGTERM), 0);

  // The same port again, as an operator restarting the daemon would.
  args[1] = address;
  tracker = std::make_unique<Daemon>(kTracker, args);
  fleet::TrackerClient client = Client(address);
  tracker::v1::FleetStatus status = client.Status();
  ASSERT_EQ(status.keys_size(), 1);
  EXPECT_EQ(status.keys(0), "board");
  std::string table;
  ASSERT_EQ(testing::RunCommand("cli/tessera fleet status --tracker " + address, &table), 0);
  EXPECT_NE(table.find("board"), std::string::npos) << table;
  // The server re-registers by itself.
  EXPECT_TRUE(WaitFor([&] { return ServerState(client, "board") == "free"; }, 5000));
  EXPECT_TRUE(WaitFor([&] { return server->registrations() >= 2; }, 2000));
}

TEST(TrackerTest, QueuedRequestSurvivesATrackerRestart) {
  std::string state = testing::MakeTempDir("queue-state");
  std::vector<std::string> args = FastLeases();
  args.insert(args.end(), {"--state", state});
  auto tracker = std::make_unique<Daemon>(kTracker, args);
  const std::string address = tracker->address();
  std::atomic<bool> granted{false};
  std::thread waiter([&] {
    fleet::TrackerClient own = Client(address);
    fleet::SessionOptions options;
    options.key = "late";
    options.queue_timeout_ms = 8000;
    own.RequestSession(options);
    granted = true;
  });
  {
    fleet::TrackerClient client = Client(address);
    ASSERT_TRUE(WaitFor([&] { return QueueLength(client, "late") == 1; }, 5000));
  }
  tracker->Stop(SIGKILL);
  args[1] = address;
  tracker = std::make_unique<Daemon>(kTracker, args);
  fleet::TrackerClient client = Client(address);
  EXPECT_TRUE(WaitFor([&] { return QueueLength(client, "late") == 1; }, 3000));
  auto server = StandIn(address, "late", "l1");
  EXPECT_TRUE(WaitFor([&] { return granted.load(); }, 5000));
  waiter.join();
}

TEST(TrackerTest, TlsTrackerServesTlsClientsOnly) {
  std::string dir = testing::MakeTempDir("tls");
  std::string out;
  testing::WriteSelfSignedCertificate(dir);
  testing::WriteFile(dir + "/token", "tls-token");
  std::vector<std::string> args = FastLeases();
  args.insert(args.end(), {"--tls-cert", dir + "/cert.pem", "--tls-key", dir + "/key.pem",
                           "--token-file", dir + "/token"});
  Daemon tracker(kTracker, args);
  fleet::TrackerLinkOptions link;
  link.tracker = tracker.address();
  link.token = "tls-token";
  link.tls_ca_file = dir + "/cert.pem";
  link.server_id = "t1";
  link.key = "secure";
  link.address = "127.0.0.1:1";
  fleet::TrackerLink server(link, fleet::LinkCallbacks());
  fleet::TrackerOptions options;
  options.address = tracker.address();
  options.token = "tls-token";
  options.tls_ca_file = dir + "/cert.pem";
  fleet::TrackerClient client(options);
  EXPECT_TRUE(WaitFor([&] { return ServerState(client, "secure") == "free"; }, 5000));
  ASSERT_EQ(testing::RunCommand("cli/tessera fleet status --json --tracker " + tracker.address() +
                                    " --token-file " + dir + "/token --tls-ca " + dir + "/cert.pem",
                                &out),
            0);
  EXPECT_NE(out.find("\"key\":\"secure\""), std::string::npos) << out;
  // A plaintext client cannot talk to it.
  fleet::TrackerOptions plain = options;
  plain.tls_ca_file.clear();
  plain.retry_window_ms = 300;
  fleet::TrackerClient plaintext(plain);
  try {
    plaintext.Status();
    FAIL() << "expected failure";
  } catch (const FleetError& e) {
    EXPECT_EQ(e.code(), FleetErrorCode::kUnavailable) << e.what();
  }
}

// A server's GPUs (as its CUDA driver lists them) reach the tracker with its registration and
// `tessera fleet status` shows them; a server without a GPU says so.
TEST(TrackerTest, FleetStatusShowsEachServersGpus) {
  Daemon tracker(kTracker, FastLeases());
  auto cpu = StandIn(tracker.address(), "cpu", "s1");
  fleet::TrackerLinkOptions options;
  options.tracker = tracker.address();
  options.server_id = "g1";
  options.key = "gpu";
  options.address = "127.0.0.1:1";
  options.info.set_arch("x86_64");
  options.info.set_cores(16);
  for (const char* name : {"NVIDIA H100 80GB HBM3", "NVIDIA L4"}) {
    tracker::v1::GpuInfo* gpu = options.info.add_gpus();
    gpu->set_name(name);
    gpu->set_arch(name[7] == 'H' ? "sm_90" : "sm_89");
    gpu->set_memory_bytes(int64_t{name[7] == 'H' ? 80 : 24} << 30);
  }
  fleet::TrackerLink gpu_server(options, fleet::LinkCallbacks());
  fleet::TrackerClient client = Client(tracker.address());
  ASSERT_TRUE(WaitFor([&] { return ServerState(client, "gpu") == "free"; }, 5000));
  ASSERT_TRUE(WaitFor([&] { return ServerState(client, "cpu") == "free"; }, 5000));
  std::string out;
  ASSERT_EQ(testing::RunCommand("cli/tessera fleet status --tracker " + tracker.address(), &out),
            0);
  EXPECT_NE(out.find("'', no GPU, "), std::string::npos) << out;
  EXPECT_NE(out.find(", 2 GPUs: NVIDIA H100 80GB HBM3 (sm_90, 81920 MiB), NVIDIA L4 (sm_89, "
                     "24576 MiB), last heartbeat"),
            std::string::npos)
      << out;
  ASSERT_EQ(
      testing::RunCommand("cli/tessera fleet status --json --tracker " + tracker.address(), &out),
      0);
  EXPECT_NE(out.find("\"gpus\":[{\"name\":\"NVIDIA H100 80GB HBM3\",\"arch\":\"sm_90\","
                     "\"memory_bytes\":\"85899345920\"}"),
            std::string::npos)
      << out;
}

TEST(TrackerTest, FleetStatusCommandPrintsJson) {
  Daemon tracker(kTracker, FastLeases());
  auto server = StandIn(tracker.address(), "cpu", "s1");
  fleet::TrackerClient client = Client(tracker.address());
  ASSERT_TRUE(WaitFor([&] { return ServerState(client, "cpu") == "free"; }, 5000));
  std::string out;
  ASSERT_EQ(
      testing::RunCommand("cli/tessera fleet status --json --tracker " + tracker.address(), &out),
      0);
  EXPECT_NE(out.find("\"servers\":[{\"key\":\"cpu\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"state\":\"free\""), std::string::npos) << out;
  ASSERT_EQ(testing::RunCommand("cli/tessera fleet status --tracker " + tracker.address(), &out),
            0);
  EXPECT_NE(out.find("cpu"), std::string::npos) << out;
  EXPECT_EQ(testing::RunCommand("cli/tessera fleet 2>&1", &out), 2);
  EXPECT_NE(out.find("A subcommand is required"), std::string::npos) << out;
  EXPECT_EQ(
      testing::RunCommand(
          "cli/tessera fleet status --tracker " + tracker.address() + " --colour=red 2>&1", &out),
      2);
  EXPECT_NE(out.find("not expected: --colour"), std::string::npos) << out;
  EXPECT_EQ(testing::RunCommand("cli/tessera fleet status --tracker nohost 2>&1", &out), 2);
  EXPECT_NE(out.find("--tracker: expected HOST:PORT, got 'nohost'"), std::string::npos) << out;
}

TEST(TrackerTest, FleetStatusShowsTheTrackersOwnTimeToGrant) {
  Daemon tracker(kTracker, FastLeases());
  auto server = StandIn(tracker.address(), "cpu", "s1");
  fleet::TrackerClient client = Client(tracker.address());
  ASSERT_TRUE(WaitFor([&] { return ServerState(client, "cpu") == "free"; }, 5000));
  std::string out;
  ASSERT_EQ(testing::RunCommand("cli/tessera fleet status --tracker " + tracker.address(), &out),
            0);
  EXPECT_EQ(out.find("grants (the tracker's own time"), std::string::npos) << out;  // none yet
  fleet::SessionOptions options;
  options.key = "cpu";
  options.queue_timeout_ms = 5000;
  client.ReleaseSession(client.RequestSession(options).grant().session_id());
  // The grant is timed once gRPC has sent it, which can be just after the client has it.
  ASSERT_TRUE(WaitFor([&] { return client.Status().grant_latency_size() == 1; }, 5000));
  ASSERT_EQ(testing::RunCommand("cli/tessera fleet status --tracker " + tracker.address(), &out),
            0);
  EXPECT_NE(out.find("grants (the tracker's own time, recent grants):\n  free         1 grants  "
                     "decided p50 "),
            std::string::npos)
      << out;
  ASSERT_EQ(
      testing::RunCommand("cli/tessera fleet status --json --tracker " + tracker.address(), &out),
      0);
  EXPECT_NE(out.find("\"grant_latency\":[{\"path\":\"free\",\"grants\":\"1\""), std::string::npos)
      << out;
}

TEST(TrackerTest, DaemonsAnswerHelpWithTheirUsage) {
  std::string out;
  EXPECT_EQ(testing::RunCommand(std::string(kTracker) + " --help", &out), 0);
  EXPECT_NE(out.find("Usage: tessera-tracker [OPTIONS]"), std::string::npos) << out;
  // The state is a directory (the usage once said FILE.db while the code took a directory).
  EXPECT_NE(out.find("--state DIR "), std::string::npos) << out;
  EXPECT_NE(out.find("SQLite DIR/tracker.db"), std::string::npos) << out;
  EXPECT_EQ(testing::RunCommand(std::string(kTracker) + " --log-level loud 2>&1", &out), 2);
  EXPECT_NE(out.find("--log-level: loud not in {debug,info,warning,error}"), std::string::npos)
      << out;
  EXPECT_EQ(testing::RunCommand(std::string(kTracker) + " --listen nohost 2>&1", &out), 2);
  EXPECT_NE(out.find("--listen: expected HOST:PORT"), std::string::npos) << out;
  EXPECT_EQ(testing::RunCommand("rpc_server/tessera-rpc-server --help", &out), 0);
  EXPECT_NE(out.find("Usage: tessera-rpc-server [OPTIONS]"), std::string::npos) << out;
  EXPECT_NE(out.find("--key DEVICE_KEY REQUIRED"), std::string::npos) << out;
  EXPECT_EQ(testing::RunCommand("rpc_server/tessera-rpc-server --key cpu 2>&1", &out), 2);
  EXPECT_NE(out.find("--tracker is required"), std::string::npos) << out;
}

}  // namespace
}  // namespace tessera
