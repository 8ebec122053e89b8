// The CUDA module without the compiler: sources, function lookup, argument checks before any
// driver call, and the "no CUDA device" error on machines without a driver (this one).
#include "runtime/cuda_module.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "runtime/cuda_devices.h"
#include "runtime/data_type.h"
#include "runtime/device_api.h"
#include "runtime/error.h"
#include "runtime/ndarray.h"
#include "runtime/time_evaluator.h"

namespace tessera {
namespace runtime {
namespace {

Module OneFunction() {
  CUDAHostFunction f;
  f.name = "scale";
  f.args = {{MakeDataType(kDLFloat, 32), {8}}, {MakeDataType(kDLFloat, 32), {8}}};
  f.launches = {{"scale_kernel0", {1, 1, 1}, {8, 1, 1}, {1, 0}}};
  return CUDAModuleCreate("// ptx\n.version 8.0\n", {f}, {{"cuda", "// cuda source"}});
}

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "<no Error>";
}

TEST(CUDAModuleTest, SourcesAndLookup) {
  Module mod = OneFunction();
  EXPECT_EQ(mod.type_key(), "cuda");
  EXPECT_EQ(mod.GetSource("ptx"), "// ptx\n.version 8.0\n");
  EXPECT_EQ(mod.GetSource("cuda"), "// cuda source");
  EXPECT_EQ(ErrorOf([&] { mod.GetSource("ll"); }),
            "cuda module has no source in format 'll' (it has: cuda, ptx)");
  EXPECT_TRUE(mod.GetFunction("scale").defined());
  EXPECT_FALSE(mod.GetFunction("missing").defined());
}

TEST(CUDAModuleTest, ExportAndLoadRoundTrip) {
  std::string path = std::string(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp") +
                     "/scale.cudamod";
  OneFunction().export_library(path);
  Module loaded = LoadCUDAModule(path);
  EXPECT_EQ(loaded.GetSource("ptx"), "// ptx\n.version 8.0\n");
  NDArray cpu = NDArray::Empty({8}, MakeDataType(kDLFloat, 32), CPUDevice());
  EXPECT_EQ(ErrorOf([&] { loaded["scale"](cpu, cpu); }),
            "scale: argument 0 is on cpu:0; a CUDA function needs arrays on a CUDA device");
  std::string other = path + ".txt";
  FILE* f = std::fopen(other.c_str(), "w");
  std::fputs("hello\n", f);
  std::fclose(f);
  EXPECT_EQ(ErrorOf([&] { LoadCUDAModule(other); }),
            "'" + other +
                "' is not a CUDA module written by export_library: no 'tessera-cuda-module 1' "
                "header");
}

TEST(CUDAModuleTest, ArgumentsAreCheckedFirst) {
  Module mod = OneFunction();
  NDArray cpu = NDArray::Empty({8}, MakeDataType(kDLFloat, 32), CPUDevice());
  EXPECT_EQ(ErrorOf([&] { mod["scale"](cpu); }), "scale: expected 2 arguments, got 1");
  EXPECT_EQ(ErrorOf([&] { mod["scale"](cpu, cpu); }),
            "scale: argument 0 is on cpu:0; a CUDA function needs arrays on a CUDA device");
}

TEST(CUDAModuleTest, NoDeviceIsAClearError) {
  if (DeviceAPI::Exists(DLDevice{kDLCUDA, 0})) GTEST_SKIP() << "a CUDA device is present";
  DLDevice gpu{kDLCUDA, 0};
  EXPECT_EQ(ErrorOf([&] {
              NDArray::Empty({8}, MakeDataType(kDLFloat, 32), gpu);
            }).rfind("no CUDA device: ", 0),
            0u);
  EXPECT_EQ(ErrorOf([&] { CUDAElapsedSeconds(0, [] {}); }).rfind("no CUDA device: ", 0), 0u);
  // A tensor that claims to be on the GPU gets past the checks and meets the missing driver.
  float data[8] = {};
  int64_t shape[1] = {8};
  DLTensor t{data, gpu, 1, MakeDataType(kDLFloat, 32), shape, nullptr, 0};
  EXPECT_EQ(ErrorOf([&] { OneFunction()["scale"](&t, &t); }).rfind("no CUDA device: ", 0), 0u);
}

// What a device server reports: zero GPUs, without an error, where there is no driver or device;
// otherwise each GPU's name, compute capability and memory.
TEST(CUDAModuleTest, ListedGpusMatchTheDriver) {
  std::vector<CUDADeviceProperties> gpus = ListCUDADevices();
  bool present = DeviceAPI::Exists(DLDevice{kDLCUDA, 0});
  ASSERT_EQ(gpus.empty(), !present);
  if (present) {
    EXPECT_EQ(static_cast<int>(gpus.size()), DeviceAPI::Get(DLDevice{kDLCUDA, 0})->DeviceCount());
  }
  for (const CUDADeviceProperties& gpu : gpus) {
    EXPECT_FALSE(gpu.name.empty());
    EXPECT_GE(gpu.major, 3) << gpu.name;
    EXPECT_EQ(gpu.arch(), "sm_" + std::to_string(gpu.major) + std::to_string(gpu.minor));
    EXPECT_GT(gpu.memory_bytes, 0) << gpu.name;
  }
  CUDADeviceProperties h100{"NVIDIA H100", 9, 0, int64_t{80} << 30};
  EXPECT_EQ(h100.arch(), "sm_90");
  EXPECT_EQ(ListCUDADevices().size(), gpus.size());  // asking again gives the same answer
}

}  // namespace
}  // namespace runtime
}  // namespace tessera
