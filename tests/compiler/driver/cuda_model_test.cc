// Whole models for a CUDA GPU, without one: every op model's kernels (the GPU templates and the
// default GPU schedule) checked against the device limits, then run serially on this CPU against
// PyTorch's outputs; every op model compiled by NVRTC into one CUDA module whose PTX ptxas
// assembles. With a GPU, the models also run on it against PyTorch (tools/gpu_check.sh).
#include <gtest/gtest.h>

#include "compiler/codegen/cuda/nvrtc.h"
#include "compiler/frontend/onnx/onnx_importer.h"
#include "runtime/device_api.h"
#include "tests/compiler/codegen/cuda/ptxas_check.h"
#include "tests/compiler/driver/model_check.h"

namespace tessera {
namespace {

constexpr const char* kArch = "sm_80";

const std::string& ModelDir() { return testing::OpModelsDir(); }

ModelBuildOptions CUDAOptions(bool emulate) {
  ModelBuildOptions options;
  options.target = std::string("cuda -arch=") + kArch;
  options.emulate_gpu_serially = emulate;
  return options;
}

void SkipWithoutNVRTC() {
  std::string why;
  if (!codegen::NVRTCAvailable(&why)) GTEST_SKIP() << "no NVRTC: " << why;
}

class CUDAModelOpsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CUDAModelOpsTest, EmulatedKernelsMatchReference) {
  ModelBuild build =
      testing::CheckModel(ModelDir(), GetParam(), 1e-4, 1e-5, false, CUDAOptions(true));
  // The GPU path: no blocked layouts (they serve CPU vectors), GPU templates only, and the same
  // tuning tasks as `tessera tune --model` extracts for the target.
  for (const runtime::ExecNode& n : build.graph.nodes) {
    EXPECT_EQ(n.function.find("NCHWc"), std::string::npos) << n.function;
  }
  std::vector<ModelTask> extracted = ExtractTasks(
      frontend::ImportOnnx(ModelDir() + "/" + GetParam() + ".onnx"), CUDAOptions(false));
  ASSERT_EQ(extracted.size(), build.tasks.size());
  for (size_t i = 0; i < extracted.size(); ++i) {
    EXPECT_NE(build.tasks[i].workload_key.find(".cuda("), std::string::npos)
        << build.tasks[i].workload_key;
    EXPECT_EQ(extracted[i].workload_key, build.tasks[i].workload_key);
  }
}

TEST_P(CUDAModelOpsTest, CompilesToPTXThatAssembles) {
  SkipWithoutNVRTC();
  if (::testing::Test::IsSkipped()) return;
  ModelBuild build =
      BuildModel(frontend::ImportOnnx(ModelDir() + "/" + GetParam() + ".onnx"), CUDAOptions(false));
  ASSERT_EQ(build.kernels.type_key(), "cuda");
  for (const runtime::ExecNode& n : build.graph.nodes) {
    EXPECT_TRUE(build.kernels.GetFunction(n.function).defined()) << n.function;
  }
  const std::string ptx = build.kernels.GetSource("ptx");
  EXPECT_NE(ptx.find(std::string(".target ") + kArch), std::string::npos);
  EXPECT_EQ(testing::AssembleWithPtxas(ptx, kArch), "") << GetParam();
}

TEST_P(CUDAModelOpsTest, RunsOnGPU) {
  SkipWithoutNVRTC();
  if (::testing::Test::IsSkipped()) return;
  if (!runtime::DeviceAPI::Exists(DLDevice{kDLCUDA, 0})) GTEST_SKIP() << "no CUDA device";
  testing::CheckModel(ModelDir(), GetParam(), 1e-4, 1e-5, false, CUDAOptions(false));
}

INSTANTIATE_TEST_SUITE_P(Ops, CUDAModelOpsTest, ::testing::ValuesIn(testing::OpModelNames()));

// Scalars (a mean over every axis, as an output and read by every element of another value):
// the GPU kernel writes a scalar output through a [1] view, and each thread computes a scalar
// reduction it reads.
TEST(CUDAModelTest, ScalarValues) {
  const std::string dir = testing::TempDir("scalar_model");
  ASSERT_TRUE(testing::RunPython("tests/compiler/driver/models/make_scalar_model.py", dir));
  testing::CheckModel(dir, "scalar_reductions", 1e-5, 1e-6, false, CUDAOptions(true));
  SkipWithoutNVRTC();
  if (::testing::Test::IsSkipped()) return;
  ModelBuild build =
      BuildModel(frontend::ImportOnnx(dir + "/scalar_reductions.onnx"), CUDAOptions(false));
  EXPECT_EQ(testing::AssembleWithPtxas(build.kernels.GetSource("ptx"), kArch), "");
  if (runtime::DeviceAPI::Exists(DLDevice{kDLCUDA, 0})) {
    testing::CheckModel(dir, "scalar_reductions", 1e-5, 1e-6, false, CUDAOptions(false));
  }
}

}  // namespace
}  // namespace tessera
