// Kernels on a real GPU against the reference evaluator: elementwise (scalar and vectorized),
// tiled matmuls with shared memory and seeded random GPU schedules, plus the time evaluator with
// CUDA events. Skips with a message without NVRTC or without a CUDA device (tools/gpu_check.sh
// runs it where there is one).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "compiler/codegen/cuda/nvrtc.h"
#include "compiler/driver/build.h"
#include "compiler/te/reference_evaluator.h"
#include "runtime/data_type.h"
#include "runtime/device_api.h"
#include "runtime/ndarray.h"
#include "runtime/time_evaluator.h"
#include "tests/compiler/codegen/cuda/cuda_test_util.h"

namespace tessera {
namespace {

using testing::GPUSchedule;

class CUDARunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!codegen::NVRTCAvailable(&why)) GTEST_SKIP() << "no NVRTC: " << why;
    if (!runtime::DeviceAPI::Exists(kGPU)) GTEST_SKIP() << "no CUDA device on this machine";
  }

  // Builds `g`, runs it on the GPU on random inputs and returns "" when every output matches
  // the reference evaluator, else the first mismatch.
  static std::string Check(const GPUSchedule& g, const std::string& name, uint64_t seed) {
    runtime::Module mod = build(g.schedule, g.args, Target("cuda -arch=" + Arch()), name);
    te::ReferenceEvaluator ref;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> dist(-1, 1);
    std::vector<runtime::NDArray> arrays;
    for (const te::Tensor& t : g.args) {
      std::vector<int64_t> shape = te::ReferenceEvaluator::ConstShape(t);
      runtime::NDArray gpu =
          runtime::NDArray::Empty(shape, runtime::MakeDataType(kDLFloat, 32), kGPU);
      int64_t n = 1;
      for (int64_t d : shape) n *= d;
      std::vector<float> host(n, 0.0f);
      if (!g.schedule.FindStage(t).defined()) {
        std::vector<double> values(n);
        for (int64_t i = 0; i < n; ++i) host[i] = static_cast<float>(values[i] = dist(rng));
        ref.SetInput(t, values);
      }
      gpu.CopyFromBytes(host.data(), host.size() * sizeof(float));
      arrays.push_back(gpu);
    }
    std::vector<TesseraValue> values(arrays.size());
    std::vector<int32_t> codes(arrays.size());
    for (size_t i = 0; i < arrays.size(); ++i) {
      values[i].v_handle = const_cast<DLTensor*>(arrays[i].operator->());
      codes[i] = kTesseraDLTensorHandle;
    }
    runtime::RetValue ret;
    mod[name].CallPacked(runtime::PackedArgs(values.data(), codes.data(), values.size()), &ret);
    runtime::DeviceAPI::Get(kGPU)->Synchronize(0);
    for (size_t a = 0; a < g.args.size(); ++a) {
      if (!g.schedule.FindStage(g.args[a]).defined()) continue;
      const std::vector<double>& want = ref.Compute(g.args[a]);
      std::vector<float> got(want.size());
      arrays[a].CopyToBytes(got.data(), got.size() * sizeof(float));
      for (size_t i = 0; i < want.size(); ++i) {
        if (std::fabs(got[i] - want[i]) > 1e-3 + 1e-3 * std::fabs(want[i])) {
          return name + ": " + g.args[a].name() + "[" + std::to_string(i) +
                 "] = " + std::to_string(got[i]) + ", expected " + std::to_string(want[i]);
        }
      }
    }
    return "";
  }

  static std::string Arch() {
    const char* arch = std::getenv("TESSERA_CUDA_ARCH");
    return arch && *arch ? arch : "sm_90";
  }

  static constexpr DLDevice kGPU{kDLCUDA, 0};
};

TEST_F(CUDARunTest, Elementwise) {
  auto f = [](ir::Expr x) { return ir::exp(x) * 0.5f + 1.0f; };
  EXPECT_EQ(Check(testing::Elementwise(1000, 128, 1, f), "ew", 1), "");
  EXPECT_EQ(Check(testing::Elementwise(1024, 64, 4, f), "ew4", 2), "");
}

TEST_F(CUDARunTest, TiledMatmul) {
  EXPECT_EQ(Check(testing::TiledMatmul(64, 8, 2, 8), "mm", 3), "");
  EXPECT_EQ(Check(testing::TiledMatmul(96, 16, 2, 16), "mm96", 4), "");
}

TEST_F(CUDARunTest, RandomGPUSchedules) {
  for (int seed = 0; seed < 16; ++seed) {
    std::mt19937 rng(seed);
    std::string desc;
    GPUSchedule g = testing::RandomGPUSchedule(&rng, &desc);
    EXPECT_EQ(Check(g, "r" + std::to_string(seed), seed), "") << "seed " << seed << ": " << desc;
  }
}

TEST_F(CUDARunTest, TimeEvaluatorUsesEvents) {
  GPUSchedule g = testing::TiledMatmul(256, 16, 2, 16);
  runtime::Module mod = build(g.schedule, g.args, Target("cuda -arch=" + Arch()), "mm");
  std::vector<runtime::NDArray> arrays;
  for (int i = 0; i < 3; ++i)
    arrays.push_back(
        runtime::NDArray::Empty({256, 256}, runtime::MakeDataType(kDLFloat, 32), kGPU));
  runtime::PackedFunc timer = runtime::TimeEvaluator(mod["mm"], kGPU, 10, 3, 0, false);
  runtime::NDArray seconds = timer(arrays[0], arrays[1], arrays[2]);
  for (int i = 0; i < 3; ++i) {
    EXPECT_GT(seconds.Data<double>()[i], 0.0);
    EXPECT_LT(seconds.Data<double>()[i], 0.1);
  }
}

}  // namespace
}  // namespace tessera
