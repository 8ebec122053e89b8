// The model zoo (torchvision CNNs and a transformer encoder, as in model_zoo_test) compiled for a
// CUDA GPU without one: every kernel of each model (the GPU templates where they apply, the
// default GPU schedule elsewhere) lowers within the device limits, the whole module compiles with
// NVRTC and its PTX assembles with ptxas. With a GPU, each model also runs on it against
// PyTorch's output (tools/gpu_check.sh). Each part skips only where this machine lacks what it
// needs (a CUDA toolkit; a GPU), saying so; a toolkit without a usable NVRTC fails.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <string>

#include "compiler/codegen/cuda/nvrtc.h"
#include "compiler/frontend/onnx/onnx_importer.h"
#include "runtime/device_api.h"
#include "tests/compiler/codegen/cuda/ptxas_check.h"
#include "tests/compiler/driver/model_check.h"

namespace tessera {
namespace {

// The model and its PyTorch outputs, written once per test process (the compile case and the GPU
// case share them).
bool MakeZooModel(const std::string& dir, const std::string& name) {
  if (access((dir + "/" + name + ".out0.npy").c_str(), R_OK) == 0) return true;  // written last
  return testing::RunPython("tests/compiler/driver/models/make_zoo_models.py",
                            dir + " " + name + " 2>/dev/null");
}

void CompileZooModelForCUDA(const std::string& name) {
  if (std::string absent = testing::NoCUDAToolkit(); !absent.empty()) GTEST_SKIP() << absent;
  std::string why;
  ASSERT_TRUE(codegen::NVRTCAvailable(&why)) << "a CUDA toolkit is present, but " << why;
  const std::string dir = testing::TempDir("cuda_zoo_" + name);
  ASSERT_TRUE(MakeZooModel(dir, name));
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
}

// On the GPU against PyTorch: a case of its own, so that a machine without a GPU reports it as
// skipped rather than passing the compile-only checks under its name.
void RunZooModelOnGPU(const std::string& name) {
  if (!runtime::DeviceAPI::Exists(DLDevice{kDLCUDA, 0})) {
    GTEST_SKIP() << "no CUDA device (no GPU, or no driver for it): " << name << " was not run";
  }
  if (std::string absent = testing::NoCUDAToolkit(); !absent.empty()) GTEST_SKIP() << absent;
  std::string why;
  ASSERT_TRUE(codegen::NVRTCAvailable(&why)) << "a CUDA toolkit is present, but " << why;
  const std::string dir = testing::TempDir("cuda_zoo_" + name);
  ASSERT_TRUE(MakeZooModel(dir, name));
  ModelBuildOptions options;
  options.target = "cuda -arch=sm_80";
  testing::CheckModel(dir, name, 1e-4, 1e-5, /*atol_scaled=*/true, options);
}

TEST(CUDAModelZooTest, ResNet18) { CompileZooModelForCUDA("resnet18"); }
TEST(CUDAModelZooTest, TransformerEncoder) { CompileZooModelForCUDA("transformer"); }
TEST(CUDAModelZooTest, MobileNetV2) { CompileZooModelForCUDA("mobilenet_v2"); }
TEST(CUDAModelZooTest, SqueezeNet) { CompileZooModelForCUDA("squeezenet1_1"); }
TEST(CUDAModelZooTest, ResNet50) { CompileZooModelForCUDA("resnet50"); }
TEST(CUDAModelZooTest, DenseNet121) { CompileZooModelForCUDA("densenet121"); }

TEST(CUDAModelZooOnGPUTest, ResNet18) { RunZooModelOnGPU("resnet18"); }
TEST(CUDAModelZooOnGPUTest, TransformerEncoder) { RunZooModelOnGPU("transformer"); }
TEST(CUDAModelZooOnGPUTest, MobileNetV2) { RunZooModelOnGPU("mobilenet_v2"); }
TEST(CUDAModelZooOnGPUTest, SqueezeNet) { RunZooModelOnGPU("squeezenet1_1"); }
TEST(CUDAModelZooOnGPUTest, ResNet50) { RunZooModelOnGPU("resnet50"); }
TEST(CUDAModelZooOnGPUTest, DenseNet121) { RunZooModelOnGPU("densenet121"); }

}  // namespace
}  // namespace tessera
