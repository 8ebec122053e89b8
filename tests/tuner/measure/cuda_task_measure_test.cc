// Tuning tasks for 'cuda' targets without a GPU: the task's build function turns sampled
// configs of every CUDA template into CUDA modules (PTX and launchers) that load back, and the
// run function reports the missing device as a clear error (a recorded failure, not a crash);
// on a GPU the run checks each candidate against the task's CPU reference.
#include <gtest/gtest.h>

#include <random>

#include "common/file.h"
#include "compiler/codegen/cuda/nvrtc.h"
#include "compiler/space/mutation.h"
#include "compiler/task/task.h"
#include "runtime/cuda_module.h"
#include "runtime/device_api.h"
#include "runtime/error.h"
#include "tuner/measure/task_measure.h"

namespace tessera {
namespace tuner {
namespace {

TEST(CUDATaskMeasureTest, SampledConfigsBuildToPTXAndRunNeedsADevice) {
  std::string why;
  if (!codegen::NVRTCAvailable(&why)) GTEST_SKIP() << "no NVRTC: " << why;
  TempDir dir("tessera-cuda-task");
  std::mt19937_64 rng(11);
  for (const char* key :
       {"dense.cuda(64,48,32,float32)", "conv2d_nchw.cuda(1,8,10,10,16,3,3,1,1,float32)",
        "depthwise_conv2d.cuda(1,8,12,12,3,3,2,1,float32)"}) {
    task::Task task(key, "cuda -arch=sm_90");
    BuildFn build = TaskBuildFn(task);
    RunOptions options;
    RunFn run = TaskRunFn(task, options);
    for (int i = 0; i < 2; ++i) {
      space::ConfigEntity config = space::RandomConfig(task.config_space(), rng);
      std::string path = dir.path() + "/candidate" + std::to_string(i);
      ASSERT_NO_THROW(build(config, path)) << key << " " << config.ToString();
      runtime::Module mod = runtime::LoadCUDAModule(path);
      EXPECT_NE(mod.GetSource("ptx").find(".entry candidate_kernel0"), std::string::npos) << key;
      if (runtime::DeviceAPI::Exists(DLDevice{kDLCUDA, 0})) {
        // On a GPU (tools/gpu_check.sh): the candidate matches the task's CPU reference.
        EXPECT_NO_THROW(run(config, path, true)) << key << " " << config.ToString();
        continue;
      }
      try {
        run(config, path, true);
        ADD_FAILURE() << key << ": ran without a CUDA device";
      } catch (const runtime::Error& e) {
        EXPECT_EQ(std::string(e.what()).rfind("no CUDA device: ", 0), 0u) << e.what();
      }
    }
  }
}

}  // namespace
}  // namespace tuner
}  // namespace tessera
