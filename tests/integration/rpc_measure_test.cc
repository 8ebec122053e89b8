// The tuner's RPC measurement against a real tracker and device servers on 127.0.0.1.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <random>

#include "common/error.h"
#include "compiler/codegen/cuda/nvrtc.h"
#include "compiler/space/mutation.h"
#include "fleet/client/remote_session.h"
#include "runtime/cuda_devices.h"
#include "runtime/cuda_module.h"
#include "runtime/data_type.h"
#include "tests/integration/fleet_fixture.h"
#include "tuner/measure/device_arch.h"
#include "tuner/measure/rpc_measurer.h"
#include "tuner/tune/tune_task.h"

namespace tessera {
namespace {

using testing::Fleet;
using tuner::MeasureOutcome;
using tuner::RpcMeasureOptions;
using tuner::RpcMeasurer;

RpcMeasureOptions Options(const Fleet& fleet) {
  RpcMeasureOptions o;
  o.tracker = fleet.tracker_address();
  o.key = "cpu";
  o.queue_timeout_ms = 5000;
  o.max_attempts = 6;
  const char* dir = std::getenv("TEST_TMPDIR");
  o.measure.work_dir = dir ? dir : "/tmp";
  o.run.number = 2;
  o.run.repeat = 2;
  return o;
}

TEST(RpcMeasureTest, CandidatesAreCheckedAndTimedOnAFleetDevice) {
  Fleet fleet;
  fleet.AddServer("cpu");
  task::Task task("dense.x86(16,32,8,float32)", "llvm");
  RpcMeasurer measurer(task, Options(fleet));
  std::mt19937_64 rng(1);
  std::vector<space::ConfigEntity> batch = {task.config_space().Fallback(),
                                            space::RandomConfig(task.config_space(), rng),
                                            space::RandomConfig(task.config_space(), rng)};
  std::vector<MeasureOutcome> out = measurer.Measure(batch);
  ASSERT_EQ(out.size(), 3u);
  for (const MeasureOutcome& o : out) {
    EXPECT_TRUE(o.ok()) << tuning::ErrorKind_Name(o.error) << " " << o.message;
    EXPECT_EQ(o.costs.size(), 2u);
  }
  EXPECT_EQ(measurer.requeued(), 0);
}

// Blocked conv2d candidates get inputs packed for their own config and their output unpacked
// before the check, on the device as locally.
TEST(RpcMeasureTest, Conv2dCandidatesOfDifferentBlocksAreCheckedOnADevice) {
  Fleet fleet;
  fleet.AddServer("cpu");
  task::Task task("conv2d_NCHWc.x86(1,8,6,6,8,3,3,1,1,float32)", "llvm");
  RpcMeasurer measurer(task, Options(fleet));
  auto config = [&](int64_t ic_bn, int64_t oc_bn) {
    return task.config_space().FromValues({{"tile_ic", {-1, ic_bn}},
                                           {"tile_oc", {-1, oc_bn}},
                                           {"tile_oh", {-1, 2}},
                                           {"tile_ow", {-1, 3}},
                                           {"unroll_kw", {0}},
                                           {"border_rows", {1}}});
  };
  for (const MeasureOutcome& o : measurer.Measure({config(2, 8), config(8, 4)})) {
    EXPECT_TRUE(o.ok()) << tuning::ErrorKind_Name(o.error) << " " << o.message;
  }
}

// int8 candidates take int32 words of bytes and give int32 sums: the device allocates their
// arrays in those types, and the exact check passes there as locally.
TEST(RpcMeasureTest, Int8CandidatesTakeTheirWordsOnADevice) {
  Fleet fleet;
  fleet.AddServer("cpu");
  task::Task task("conv2d_NCHWc_int8.x86(1,16,6,6,8,3,3,1,1,7,uint8)", "llvm");
  RpcMeasurer measurer(task, Options(fleet));
  std::mt19937_64 rng(2);
  std::vector<space::ConfigEntity> batch = {task.config_space().Fallback(),
                                            space::RandomConfig(task.config_space(), rng)};
  for (const MeasureOutcome& o : measurer.Measure(batch)) {
    EXPECT_TRUE(o.ok()) << tuning::ErrorKind_Name(o.error) << " " << o.message;
  }
}

TEST(RpcMeasureTest, ACandidateWhoseDeviceIsLostIsRequeuedOnAnother) {
  Fleet fleet;
  fleet.AddServer("cpu");
  fleet.AddServer("cpu");
  task::Task task("dense.x86(16,32,8,float32)", "llvm");
  RpcMeasurer measurer(task, Options(fleet));
  // Hold one server so that the measurer's session lands on the other one.
  fleet::SessionOptions hold;
  hold.key = "cpu";
  auto held = fleet::RemoteSession::Open(fleet.Client(), hold);
  std::string held_address = held->grant().server_address();
  ASSERT_TRUE(measurer.Measure({task.config_space().Get(0)})[0].ok());
  std::string used = measurer.current_device();
  ASSERT_NE(used, held_address);
  held.reset();  // released: the other server is free again
  // Kill the server the measurer is using: its next candidates must move to the survivor.
  fleet.ServerAt(used)->Stop(SIGKILL);

  std::vector<MeasureOutcome> out =
      measurer.Measure({task.config_space().Get(1), task.config_space().Get(2)});
  for (const MeasureOutcome& o : out) {
    EXPECT_TRUE(o.ok()) << tuning::ErrorKind_Name(o.error) << " " << o.message;
  }
  // Requeued when the tracker still granted the dead server (it learns of the death at the lease
  // timeout, 2.5 s here); where building the batch took longer than that (under ASan it can), the
  // tracker granted the survivor at once and nothing needed moving. Either way every candidate
  // ran, on the survivor.
  EXPECT_LE(measurer.requeued(), 2);
  EXPECT_EQ(measurer.current_device(), held_address);
}

TEST(RpcMeasureTest, TuningThroughTheFleetRecordsTheDeviceKey) {
  Fleet fleet;
  fleet.AddServer("cpu");
  fleet.AddServer("cpu");
  task::Task task("dense.x86(16,32,8,float32)", "llvm");
  const char* dir = std::getenv("TEST_TMPDIR");
  auto log = records::TuningLog::Open(std::string(dir ? dir : "/tmp") + "/rpc_tune.db");
  tuner::TuneTaskOptions options;
  options.tuner = "random";
  options.trials = 6;
  options.batch_size = 3;
  options.run.number = 2;
  options.run.repeat = 2;
  options.rpc_tracker = fleet.tracker_address();
  options.rpc_key = "cpu";
  tuner::TuneTaskResult r = tuner::TuneTask(task, log.get(), options);
  EXPECT_EQ(r.search.trials, 6);
  EXPECT_EQ(r.search.failures, 0);
  auto best = log->Best(task.workload_key(), "llvm");
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->device_key(), "cpu");
}

TEST(RpcMeasureTest, NoDeviceLeftIsADeviceLostOutcome) {
  Fleet fleet;
  fleet.AddServer("cpu");
  task::Task task("dense.x86(16,32,8,float32)", "llvm");
  RpcMeasureOptions options = Options(fleet);
  options.queue_timeout_ms = 1500;
  options.max_attempts = 2;
  RpcMeasurer measurer(task, options);
  ASSERT_TRUE(measurer.Measure({task.config_space().Get(0)})[0].ok());
  fleet.ServerAt(measurer.current_device())->Stop(SIGKILL);
  MeasureOutcome o = measurer.Measure({task.config_space().Get(3)})[0];
  EXPECT_EQ(o.error, tuning::DEVICE_LOST) << o.message;
  EXPECT_THAT(o.message, ::testing::HasSubstr("on device key 'cpu'"));
}

// A server reports the GPUs its CUDA driver lists (none here: zero, silently), and a cuda task
// sent to a key without a fitting GPU is refused when the session opens, before any upload, naming
// the target, the key and the server; the refused device goes back to the tracker at once.
TEST(RpcMeasureTest, ServersReportTheirGpusAndACudaTargetWithoutOneIsRefused) {
  Fleet fleet;
  fleet.AddServer("cpu");
  std::vector<runtime::CUDADeviceProperties> local = runtime::ListCUDADevices();
  tracker::v1::FleetStatus status = fleet.Client()->Status();
  ASSERT_EQ(status.servers_size(), 1);
  const tracker::v1::ServerStatus& server = status.servers(0);
  ASSERT_EQ(server.info().gpus_size(), static_cast<int>(local.size()));
  for (size_t i = 0; i < local.size(); ++i) {
    EXPECT_EQ(server.info().gpus(i).name(), local[i].name);
    EXPECT_EQ(server.info().gpus(i).arch(), local[i].arch());
    EXPECT_EQ(server.info().gpus(i).memory_bytes(), local[i].memory_bytes);
  }
  // Without a GPU any cuda target is refused; with one, an -arch newer than it.
  std::string target =
      local.empty() ? "cuda -arch=sm_80"
                    : "cuda -arch=sm_" + std::to_string(local[0].major * 10 + local[0].minor + 10);
  fleet::SessionOptions request;
  request.key = "cpu";
  request.queue_timeout_ms = 5000;
  try {
    tuner::OpenSessionForTarget(fleet.Client(), request, target);
    FAIL() << target << " was accepted by a server with " << local.size() << " GPUs";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("target '" + target + "'"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("device key 'cpu' gave server " + server.address()));
    EXPECT_THAT(e.what(), ::testing::HasSubstr(local.empty() ? "which reports no GPU"
                                                             : "whose GPU 0 (" + local[0].name));
  }
  request.queue_timeout_ms = 2000;
  EXPECT_EQ(fleet::RemoteSession::Open(fleet.Client(), request)->grant().server_address(),
            server.address());
}

// The tuner's own path: a cuda task is refused on the GPU-less device before its candidates are
// built (NVRTC here) or uploaded, a user error rather than a failed record per candidate.
TEST(RpcMeasureTest, ACudaTaskOnAKeyWithoutGpuIsRefusedBeforeAnyUpload) {
  std::string why;
  if (!codegen::NVRTCAvailable(&why)) GTEST_SKIP() << "no NVRTC: " << why;
  if (!runtime::ListCUDADevices().empty()) GTEST_SKIP() << "this machine's server has a GPU";
  Fleet fleet;
  fleet.AddServer("cpu");
  task::Task task("dense.cuda(16,16,16,float32)", "cuda -arch=sm_80");
  RpcMeasureOptions options = Options(fleet);
  options.measure.work_dir = testing::MakeTempDir("refused-cuda-builds");
  std::vector<std::string> steps;
  options.before_step = [&](const std::string& step) { steps.push_back(step); };
  RpcMeasurer measurer(task, options);
  try {
    measurer.Measure({task.config_space().Fallback(), task.config_space().Get(0)});
    FAIL() << "a cuda task was measured on a server without GPU";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("target 'cuda -arch=sm_80' runs on a CUDA GPU, but "
                                               "device key 'cpu' gave server "));
  }
  EXPECT_EQ(steps, std::vector<std::string>{"open"});  // nothing uploaded
  // Nor built: the refusal comes before the batch's builds, so no candidate library was written.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(options.measure.work_dir),
                          std::filesystem::directory_iterator()),
            0);
}

// The same refusal from the command line: `tessera tune` stops with exit 2 (bad input) and the
// message, and its log holds no record of the refused candidates.
TEST(RpcMeasureTest, TesseraTuneRefusesACudaTargetOnAKeyWithoutGpu) {
  std::string why;
  if (!codegen::NVRTCAvailable(&why)) GTEST_SKIP() << "no NVRTC: " << why;
  if (!runtime::ListCUDADevices().empty()) GTEST_SKIP() << "this machine's server has a GPU";
  Fleet fleet;
  fleet.AddServer("cpu");
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string db = std::string(dir ? dir : "/tmp") + "/refused_cuda.db";
  std::string out;
  EXPECT_EQ(testing::RunCommand("cli/tessera tune --task 'dense.cuda(16,16,16,float32)' --target "
                                "'cuda -arch=sm_80' --trials 2 --db " +
                                    db + " --rpc-tracker " + fleet.tracker_address() +
                                    " --rpc-key cpu 2>&1",
                                &out),
            2)
      << out;
  EXPECT_THAT(out, ::testing::HasSubstr("error: target 'cuda -arch=sm_80' runs on a CUDA GPU, but "
                                        "device key 'cpu' gave server 127.0.0.1:"))
      << out;
  EXPECT_TRUE(records::TuningLog::Open(db)->List({}).empty());
}

// A CUDA candidate (launchers + PTX, as `export_library` writes it; a stand-in PTX here, so no
// NVRTC is needed) uploads and loads on any server, whatever its file name. Without a GPU its call
// and its timing fail with the runtime's "no CUDA device" message as a call failure: a failed
// candidate (RUNTIME_ERROR), not a lost device, and the session goes on.
TEST(RpcMeasureTest, ACudaModuleOnAServerWithoutGpuIsAFailedCandidateNotALostDevice) {
  if (!runtime::ListCUDADevices().empty()) GTEST_SKIP() << "this machine's server has a GPU";
  runtime::CUDAHostFunction f;
  f.name = "scale";
  f.args = {{runtime::MakeDataType(kDLFloat, 32), {8}}, {runtime::MakeDataType(kDLFloat, 32), {8}}};
  f.launches = {{"scale_kernel0", {1, 1, 1}, {8, 1, 1}, {1, 0}}};
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string path = std::string(dir ? dir : "/tmp") + "/cuda_candidate.so";
  runtime::CUDAModuleCreate("// ptx\n.version 8.0\n", {f}).export_library(path);

  Fleet fleet;
  fleet.AddServer("cpu");
  fleet::SessionOptions request;
  request.key = "cpu";
  request.queue_timeout_ms = 5000;
  auto session = fleet::RemoteSession::Open(fleet.Client(), request);
  session->UploadFile("candidate_0.so", path);
  int64_t module = session->LoadModule("candidate_0.so");
  int64_t a = session->AllocArray({8}, "float32");
  int64_t b = session->AllocArray({8}, "float32");
  std::vector<fleet::RemoteArg> args = {fleet::RemoteArg::Array(a), fleet::RemoteArg::Array(b)};
  for (int timed = 0; timed < 2; ++timed) {
    try {
      if (timed) {
        session->Time(module, "scale", args, 1, 1);
      } else {
        session->Call(module, "scale", args);
      }
      FAIL() << "a CUDA module ran on a server without GPU";
    } catch (const fleet::FleetError& e) {
      EXPECT_EQ(e.code(), fleet::FleetErrorCode::kCallFailed) << e.what();
      EXPECT_THAT(e.what(), ::testing::HasSubstr("no CUDA device: "));
      EXPECT_EQ(tuner::ErrorKindOfFleetFailure(e), tuning::RUNTIME_ERROR);
    }
  }
  float in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8] = {};
  session->CopyIn(a, in, sizeof(in));
  session->CopyOut(a, out, sizeof(out));
  EXPECT_EQ(std::vector<float>(out, out + 8), std::vector<float>(in, in + 8));
}

}  // namespace
}  // namespace tessera
