// Device loss is never a failed config: a device server killed at any step of a candidate's
// measurement moves the candidate to another device, and no record is an error.
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdint>
#include <cstdlib>
#include <thread>

#include "fleet/client/remote_session.h"
#include "tests/integration/fleet_fixture.h"
#include "tuner/measure/rpc_measurer.h"

namespace tessera {
namespace {

using testing::Fleet;
using tuner::MeasureOutcome;
using tuner::RpcMeasurer;

struct Loss {
  std::string step;  ///< the measurer's step before which the device dies
  /// > 0: it dies instead once the server's call worker has used this much CPU time (ms) in the
  /// step, which only the step's call uses: the call is in flight.
  int call_cpu_ms = 0;
};

void PrintTo(const Loss& loss, std::ostream* out) {
  *out << loss.step
       << (loss.call_cpu_ms > 0 ? " +" + std::to_string(loss.call_cpu_ms) + " ms of the call" : "");
}

class DeviceLossTest : public ::testing::TestWithParam<Loss> {};

// Measurement of tiny dense candidates on the test fleet, with repeated attempts.
tuner::RpcMeasureOptions Options(const Fleet& fleet) {
  tuner::RpcMeasureOptions options;
  options.tracker = fleet.tracker_address();
  options.key = "cpu";
  options.queue_timeout_ms = 10000;
  options.max_attempts = 4;
  const char* dir = std::getenv("TEST_TMPDIR");
  options.measure.work_dir = dir ? dir : "/tmp";
  options.run.number = 2;
  options.run.repeat = 2;
  return options;
}

// One worker thread per kernel: parallel launches on a loaded machine make timing (and so the
// test) take many times longer.
testing::FleetConfig SingleThreadedFleet() {
  setenv("TESSERA_NUM_THREADS", "1", 1);  // inherited by the servers' workers
  testing::FleetConfig config;
  config.server_flags = {"--call-timeout-ms", "30000"};
  return config;
}

TEST_P(DeviceLossTest, TheCandidateMovesToAnotherDeviceAndNoRecordIsAnError) {
  const Loss loss = GetParam();
  Fleet fleet(SingleThreadedFleet());
  fleet.AddServer("cpu");
  fleet.AddServer("cpu");
  task::Task task("dense.x86(16,32,8,float32)", "llvm");
  tuner::RpcMeasureOptions options = Options(fleet);
  // Mid-call losses need a call long enough to be in flight when the server dies.
  if (loss.call_cpu_ms > 0) options.run.min_repeat_ms = 100;
  std::unique_ptr<RpcMeasurer> measurer;
  std::string killed;
  std::thread killer;
  bool killed_mid_call = false;
  options.before_step = [&](const std::string& step) {
    if (step != loss.step || !killed.empty()) return;
    killed = measurer->current_device();
    testing::Daemon* server = fleet.ServerAt(killed);
    ASSERT_NE(server, nullptr) << killed;
    if (loss.call_cpu_ms <= 0) {
      server->Stop(SIGKILL);
    } else {
      killer = std::thread([server, &killed_mid_call, cpu_ms = loss.call_cpu_ms] {
        const int64_t before = server->ChildrenCpuMillis();
        killed_mid_call =
            testing::WaitFor([&] { return server->ChildrenCpuMillis() >= before + cpu_ms; }, 30000);
        server->Stop(SIGKILL);
      });
    }
  };
  measurer = std::make_unique<RpcMeasurer>(task, options);
  // The device dies during the first candidate; both must be measured on the survivor.
  std::vector<MeasureOutcome> out =
      measurer->Measure({task.config_space().Get(0), task.config_space().Get(1)});
  if (killer.joinable()) killer.join();
  ASSERT_FALSE(killed.empty()) << "the step '" << loss.step << "' never came";
  if (loss.call_cpu_ms > 0) {
    EXPECT_TRUE(killed_mid_call) << "the call never ran on the server";
  }
  for (const MeasureOutcome& o : out) {
    EXPECT_EQ(o.error, tuning::OK) << tuning::ErrorKind_Name(o.error) << " " << o.message;
  }
  EXPECT_GE(measurer->requeued(), 1);
  EXPECT_NE(measurer->current_device(), killed);
}

// A server that dies and whose port another server takes before the tracker notices: the grant
// for the dead one reaches the wrong server, which is a lost device too.
TEST(DeviceLossTest, AGrantThatReachesTheWrongServerIsADeviceLoss) {
  Fleet fleet(SingleThreadedFleet());
  fleet.AddServer("cpu");
  fleet.AddServer("cpu");
  fleet::SessionOptions hold;
  hold.key = "cpu";
  auto held = fleet::RemoteSession::Open(fleet.Client(), hold);  // one server stays busy
  task::Task task("dense.x86(16,32,8,float32)", "llvm");
  tuner::RpcMeasureOptions options = Options(fleet);
  std::unique_ptr<RpcMeasurer> measurer;
  std::string killed;
  std::unique_ptr<testing::Daemon> thief;
  options.before_step = [&](const std::string& step) {
    if (step == "upload" && killed.empty()) {
      killed = measurer->current_device();
      fleet.ServerAt(killed)->Stop(SIGKILL);
    } else if (step == "open" && !killed.empty() && !thief) {
      // Started after the lost session was released, so the tracker still grants the dead
      // server first (its entry lives until the lease times out), at the thief's address.
      thief = std::make_unique<testing::Daemon>(
          "rpc_server/tessera-rpc-server",
          std::vector<std::string>{"--tracker", fleet.tracker_address(), "--key", "cpu", "--listen",
                                   killed, "--workdir", testing::MakeTempDir("device-loss-thief")});
    }
  };
  measurer = std::make_unique<RpcMeasurer>(task, options);
  std::vector<MeasureOutcome> out = measurer->Measure({task.config_space().Get(0)});
  ASSERT_TRUE(thief) << "the candidate was never re-queued";
  EXPECT_EQ(out[0].error, tuning::OK)
      << tuning::ErrorKind_Name(out[0].error) << " " << out[0].message;
  EXPECT_GE(measurer->requeued(), 2);
}

INSTANTIATE_TEST_SUITE_P(Steps, DeviceLossTest,
                         ::testing::Values(Loss{"upload"}, Loss{"load"}, Loss{"copy_in"},
                                           Loss{"call"}, Loss{"copy_out"}, Loss{"time"},
                                           Loss{"time", 20}),
                         [](const ::testing::TestParamInfo<Loss>& info) {
                           return info.param.step +
                                  (info.param.call_cpu_ms > 0 ? "_in_flight" : "");
                         });

}  // namespace
}  // namespace tessera
