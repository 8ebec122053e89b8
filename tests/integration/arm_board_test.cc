// An emulated aarch64 board in the fleet: the cross-built rpc_server runs under qemu-aarch64 (user
// mode) on loopback, registers with the x86 tracker under key arm-qemu, and `tessera tune` builds
// aarch64 candidates on this host, measures them on the board, checks every answer and records
// them with the device key. Timings under emulation are meaningless; the flow is what is checked.
// Skips only where qemu-user, the aarch64 C library or the arm64 build (placeholder) is missing;
// with them installed (tools/setup.sh installs them), an emulator that cannot run the board fails.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <set>
#include <string>

#include "records/tuning_log.h"
#include "tests/integration/fleet_fixture.h"

namespace tessera {
namespace {

using testing::Fleet;
using testing::FleetConfig;
using ::testing::HasSubstr;

constexpr const char* kServer = "rpc_server/aarch64/tessera-rpc-server-static";
constexpr const char* kQemu = "tools/qemu_aarch64.sh";
constexpr const char* kKey = "arm-qemu";
constexpr const char* kBoardTarget = "llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72";

std::string SkipReason() {
  std::ifstream in(kServer);
  std::string first;
  std::getline(in, first);
  if (first.rfind("SKIP", 0) == 0) return first;
  if (access("/usr/bin/qemu-aarch64", X_OK) != 0) {
    return "qemu-aarch64 (Debian qemu-user) is not installed";
  }
  if (access("/usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1", R_OK) != 0) {
    return "the aarch64 C library (Debian libc6-arm64-cross) is not installed";
  }
  return "";
}

// Why the installed emulator cannot run a two-line threaded aarch64 program through the wrapper
// ("" when it can). That is a failure, not a skip: the wrapper is what the board runs under (it
// once handed qemu the multiarch libc, and the first thread hung; see tools/qemu_aarch64.sh).
std::string ProbeEmulator() {
  constexpr int kLimitS = 60;  // the probe takes about a second; a loaded 2-core host is slower
  std::string probe;
  int rc =
      testing::RunCommand("timeout -s KILL " + std::to_string(kLimitS) + " " + std::string(kQemu) +
                              " tests/integration/qemu_thread_probe-static 2>&1",
                          &probe);
  if (probe == "ok\n" && rc == 0) return "";
  std::string what = rc == 128 + SIGKILL ? "was killed after " + std::to_string(kLimitS) + " s"
                                         : "exited with status " + std::to_string(rc);
  return std::string(kQemu) + " tests/integration/qemu_thread_probe-static (a threaded aarch64 " +
         "program printing \"ok\") " + what + ", printing: '" + probe +
         "'; no emulated board can run until the wrapper or qemu-user is fixed";
}

// The board's server under the emulator. The server re-executes itself as its call worker; the
// host kernel cannot run an aarch64 binary, so it re-executes this script instead.
std::string WriteEmulatedServer(const std::string& dir) {
  char server[PATH_MAX], qemu[PATH_MAX];
  if (realpath(kServer, server) == nullptr) throw std::runtime_error("no " + std::string(kServer));
  if (realpath(kQemu, qemu) == nullptr) throw std::runtime_error("no " + std::string(kQemu));
  std::string script = dir + "/arm-board.sh";
  testing::WriteFile(script, "#!/bin/sh\nexec " + std::string(qemu) + " " + server + " \"$@\"\n");
  chmod(script.c_str(), 0755);
  return script;
}

class ArmBoardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static const std::string skip = SkipReason();
    if (!skip.empty()) GTEST_SKIP() << skip;
    static const std::string broken = ProbeEmulator();  // once: it can take a while
    if (!broken.empty()) FAIL() << broken;
    dir_ = testing::MakeTempDir("arm-board");
    FleetConfig config;
    config.server_binary = WriteEmulatedServer(dir_);
    // Emulation is slow: a generous call limit (a worker starts in about a second).
    config.server_flags = {
        "--call-timeout-ms", "30000", "--target", kBoardTarget, "--worker-executable",
        config.server_binary};
    fleet_ = std::make_unique<Fleet>(config);
    board_ = fleet_->AddServer(kKey).address();
  }

  // `tessera tune` of `task` (default: a small dense task) for `target` on the board, with `flags`
  // added; stdout and stderr in `output`.
  int Tune(const std::string& target, const std::string& db, std::string* output,
           const std::string& task = "dense.arm(8,16,16,float32)", const std::string& flags = "") {
    return testing::RunCommand(
        "cli/tessera tune --task '" + task + "' --target '" + target + "' --rpc-tracker " +
            fleet_->tracker_address() + " --rpc-key " + kKey +
            " --trials 3 --batch 3 --tuner random --number 1 --repeat 1 --min-repeat-ms 0 " +
            flags + " --db " + db + " 2>&1",
        output);
  }

  std::string dir_;
  std::unique_ptr<Fleet> fleet_;
  std::string board_;
};

TEST_F(ArmBoardTest, TunesAarch64CandidatesOnTheEmulatedBoard) {
  // The board registered with its own arch (uname under the emulator) and target.
  bool listed = false;
  tracker::v1::FleetStatus status = fleet_->Client()->Status();
  for (const auto& server : status.servers()) {
    if (server.address() != board_) continue;
    listed = true;
    EXPECT_EQ(server.key(), kKey);
    EXPECT_EQ(server.info().arch(), "aarch64");
    EXPECT_EQ(server.info().target(), kBoardTarget);
  }
  ASSERT_TRUE(listed) << "the board is not in the tracker's status";

  std::string db = dir_ + "/tuning.db";
  std::string output;
  ASSERT_EQ(Tune(kBoardTarget, db, &output), 0) << output;
  std::vector<tuning::MeasureRecord> records = records::TuningLog::Open(db)->List({});
  ASSERT_EQ(records.size(), 3u) << output;
  for (const tuning::MeasureRecord& r : records) {
    // OK means the board's answer matched the host's reference (else WRONG_ANSWER).
    EXPECT_EQ(r.error_kind(), tuning::OK) << r.error_message();
    EXPECT_EQ(r.device_key(), kKey);
    EXPECT_EQ(r.target(), kBoardTarget);
    EXPECT_FALSE(r.costs().empty());
  }
}

// The Arm convolution template (each pixel's channels loaded as one vector, lane-indexed
// multiply-adds from the aarch64 backend) computes on the board what the host's reference does,
// timed with its weights evicted by the board's own cache maintenance (`dc civac`).
TEST_F(ArmBoardTest, TunesTheArmConvolutionTemplate) {
  std::string db = dir_ + "/conv.db";
  std::string output;
  ASSERT_EQ(Tune(kBoardTarget, db, &output, "conv2d_NCHWc.arm(1,8,6,6,8,3,3,1,1,float32)",
                 "--cold-weights on"),
            0)
      << output;
  std::vector<tuning::MeasureRecord> records = records::TuningLog::Open(db)->List({});
  ASSERT_EQ(records.size(), 3u) << output;
  bool lane_loads = false;
  for (const tuning::MeasureRecord& r : records) {
    EXPECT_EQ(r.error_kind(), tuning::OK) << r.error_message();
    EXPECT_EQ(r.device_key(), kKey);
    EXPECT_TRUE(r.cold_weights());
    for (const tuning::KnobValue& knob : r.config().knobs())
      lane_loads |= knob.name() == "lane_loads";
  }
  EXPECT_TRUE(lane_loads) << "no record names the knob";
}

// A model tuned for the board tunes the Arm templates, and only those (the aarch64 strategy:
// dense.arm and batch_matmul.arm for an encoder's products), every candidate checked on the board;
// `tessera compile --db` then builds it from those records with every template kernel tuned.
TEST_F(ArmBoardTest, TunesAModelsArmTemplatesAndBuildsFromTheirRecords) {
  std::string output;
  ASSERT_EQ(testing::RunCommand(
                "/usr/bin/python3 tests/compiler/driver/models/make_op_models.py " + dir_ + " 2>&1",
                &output),
            0)
      << output;
  const std::string model = dir_ + "/attention_block.onnx", db = dir_ + "/model.db";
  ASSERT_EQ(testing::RunCommand(
                "cli/tessera tune " + model + " --target '" + kBoardTarget + "' --rpc-tracker " +
                    fleet_->tracker_address() + " --rpc-key " + kKey +
                    " --trials 6 --batch 2 --number 1 --repeat 1 --min-repeat-ms 0 --no-check" +
                    " --db " + db + " 2>&1",
                &output),
            0)
      << output;
  std::set<std::string> templates;
  for (const tuning::MeasureRecord& r : records::TuningLog::Open(db)->List({})) {
    EXPECT_EQ(r.error_kind(), tuning::OK) << r.workload_key() << ": " << r.error_message();
    EXPECT_EQ(r.device_key(), kKey);
    templates.insert(records::TemplateOfWorkload(r.workload_key()));
  }
  EXPECT_EQ(templates, (std::set<std::string>{"batch_matmul.arm", "dense.arm"})) << output;
  EXPECT_EQ(testing::RunCommand("cli/tessera compile " + model + " --target '" + kBoardTarget +
                                    "' --db " + db + " --min-coverage 100 -o " + dir_ +
                                    "/attention.tsr 2>&1",
                                &output),
            0)
      << output;
}

TEST_F(ArmBoardTest, HostTargetIsRefusedBeforeAnyUpload) {
  std::string db = dir_ + "/refused.db";
  std::string output;
  EXPECT_EQ(Tune("llvm -mtriple=x86_64-linux-gnu", db, &output), 2) << output;
  EXPECT_THAT(output, HasSubstr("target 'llvm -mtriple=x86_64-linux-gnu' builds code for x86_64, "
                                "but device key 'arm-qemu' gave server " +
                                board_ + ", which reports arch aarch64"));
  EXPECT_EQ(records::TuningLog::Open(db)->Count(), 0) << output;
  // The refused session was given back at once.
  EXPECT_TRUE(testing::WaitFor([&] { return fleet_->StateOf(board_) == "free"; }, 10000));
}

// Without the worker script, the emulated server cannot start its call worker: it refuses to
// register, naming the exec error and the flag, instead of failing every call of every session.
TEST_F(ArmBoardTest, AnEmulatedServerWithoutAWorkerScriptRefusesToRegister) {
  std::string output;
  const int status = testing::RunCommand(
      "timeout -s KILL 120 " + std::string(kQemu) + " " + kServer + " --tracker " +
          fleet_->tracker_address() + " --key arm-no-worker --workdir " + dir_ + "/no-worker 2>&1",
      &output);
  EXPECT_EQ(status, 2) << output;
  EXPECT_THAT(output, HasSubstr("not registering: no call could be served, the worker process did "
                                "not start: cannot execute '/proc/self/exe': Exec format error"));
  EXPECT_THAT(output, HasSubstr("pass --worker-executable SCRIPT"));
  const tracker::v1::FleetStatus fleet_status = fleet_->Client()->Status();
  for (const auto& server : fleet_status.servers()) {
    EXPECT_NE(server.key(), "arm-no-worker") << "the server registered";
  }
}

}  // namespace
}  // namespace tessera
