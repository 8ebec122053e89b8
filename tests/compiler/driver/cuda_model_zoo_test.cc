// The model zoo (torchvision CNNs and a transformer encoder, as in model_zoo_test) compiled for a
// CUDA GPU without one: every kernel of each model (the GPU templates where they apply, the
// default GPU schedule elsewhere) lowers within the device limits, the whole module compiles with
// NVRTC and its PTX assembles with ptxas. With a GPU, each model also runs on it against
// PyTorch's output (tools/gpu_check.sh).
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>

#include "compiler/codegen/cuda/nvrtc.h"
#include "compiler/frontend/onnx/onnx_importer.h"
#include "runtime/device_api.h"
#include "tests/compiler/codegen/cuda/ptxas_check.h"
#include "tests/compiler/driver/model_check.h"

namespace tessera {
namespace {

void CheckZooModelForCUDA(const std::string& name) {
  std::string why;
  if (!codegen::NVRTCAvailable(&why)) GTEST_SKIP() << "no NVRTC: " << why;
  const std::string dir = testing::TempDir("cuda_zoo_" + name);
  ASSERT_TRUE(testing::RunPython("tests/compiler/driver/models/make_zoo_models.py",
                                 dir + " " + name + " 2>/dev/null"));
  ModelBuildOptions options;
  options.target = "cuda -arch=sm_80";
  auto start = std::chrono::steady_clock::now();
  ModelBuild build = BuildModel(frontend::ImportOnnx(dir + "/" + name + ".onnx"), options);
  std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  std::cout << name << ": " << build.graph.nodes.size() << " kernel calls compiled to PTX in "
            << took.count() << " s\n"
            << build.CoverageLine() << "\n";
  ASSERT_EQ(build.kernels.type_key(), "cuda");
  for (const runtime::ExecNode& n : build.graph.nodes) {
    EXPECT_TRUE(build.kernels.GetFunction(n.function).defined()) << n.function;
  }
  EXPECT_EQ(testing::AssembleWithPtxas(build.kernels.GetSource("ptx"), "sm_80"), "") << name;
  if (runtime::DeviceAPI::Exists(DLDevice{kDLCUDA, 0})) {
    testing::CheckModel(dir, name, 1e-4, 1e-5, /*atol_scaled=*/true, options);
  } else {
    std::cout << "note: no CUDA device; " << name << " was not run\n";
  }
}

TEST(CUDAModelZooTest, ResNet18) { CheckZooModelForCUDA("resnet18"); }
TEST(CUDAModelZooTest, TransformerEncoder) { CheckZooModelForCUDA("transformer"); }
TEST(CUDAModelZooTest, MobileNetV2) { CheckZooModelForCUDA("mobilenet_v2"); }
TEST(CUDAModelZooTest, SqueezeNet) { CheckZooModelForCUDA("squeezenet1_1"); }
TEST(CUDAModelZooTest, ResNet50) { CheckZooModelForCUDA("resnet50"); }
TEST(CUDAModelZooTest, DenseNet121) { CheckZooModelForCUDA("densenet121"); }

}  // namespace
}  // namespace tessera
