// The CUDA templates without a GPU: sampled configs of each lower for a GPU (within the device
// limits) and their CUDA C compiles to PTX (one NVRTC program per template) that ptxas assembles.
// Without a CUDA toolkit a case lowers its kernels and then skips, saying so; a toolkit without a
// usable NVRTC fails. Kernels run on a GPU in tools/gpu_check.sh.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "common/file.h"
#include "compiler/codegen/cuda/codegen_cuda.h"
#include "compiler/codegen/cuda/cuda_toolkit.h"
#include "compiler/codegen/cuda/nvrtc.h"
#include "compiler/ir/op.h"
#include "compiler/lower/lower.h"
#include "compiler/space/mutation.h"
#include "compiler/support/error.h"
#include "compiler/topi/conv2d_nchw_cuda.h"
#include "compiler/topi/dense_cuda.h"
#include "compiler/topi/depthwise_conv2d_cuda.h"
#include "compiler/topi/gpu_schedule.h"
#include "tests/compiler/codegen/cuda/ptxas_check.h"

namespace tessera {
namespace topi {
namespace {

// The fallback, the first and last points and `random` sampled ones.
std::vector<space::ConfigEntity> Sample(const space::ConfigSpace& s, int random, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<space::ConfigEntity> configs = {s.Fallback(), s.Get(0), s.Get(s.size() - 1)};
  for (int i = 0; i < random; ++i) configs.push_back(space::RandomConfig(s, rng));
  return configs;
}

// GTEST_SKIP returns from the function it is in, so it needs one returning void.
void SkipAfterLowering(const std::string& absent) {
  GTEST_SKIP() << "the kernels were lowered, not compiled: " << absent;
}

// Lowers every config for a GPU and compiles all kernels as one NVRTC program (then ptxas);
// returns the CUDA C. Without a CUDA toolkit the test is marked skipped after the lowering
// (IsSkipped()) and "" is returned.
std::string BuildAll(const std::string& name, const std::vector<space::ConfigEntity>& configs,
                     const std::function<ScheduledOp(const space::ConfigEntity&)>& instantiate) {
  std::vector<ir::PrimFunc> kernels;
  for (size_t i = 0; i < configs.size(); ++i) {
    ScheduledOp op = instantiate(configs[i]);
    lower::HostDeviceSplit split;
    try {
      split = lower::LowerForGPU(op.schedule, op.args, name + std::to_string(i));
    } catch (const std::exception& e) {
      ADD_FAILURE() << configs[i].ToString() << ": " << e.what();
      continue;
    }
    for (const ir::PrimFunc& k : split.kernels) kernels.push_back(k);
  }
  if (std::string absent = testing::NoCUDAToolkit(); !absent.empty()) {
    SkipAfterLowering(absent);
    return "";
  }
  std::string why;
  if (!codegen::NVRTCAvailable(&why)) {
    ADD_FAILURE() << "a CUDA toolkit is present, but " << why;
    return "";
  }
  std::string source = codegen::GenerateCUDA(kernels);
  std::string ptx = codegen::CompileToPTX(source, "sm_90", false, name + ".cu");
  EXPECT_EQ(testing::AssembleWithPtxas(ptx, "sm_90"), "");
  return source;
}

TEST(CUDATemplatesTest, DenseSampledConfigsBuild) {
  DenseShape shape{128, 96, 64};
  space::ConfigSpace s = DenseCUDASpace(shape);
  EXPECT_GT(s.size(), 1000);
  BuildAll("dense", Sample(s, 8, 3),
           [&](const space::ConfigEntity& c) { return DenseCUDA(shape, c); });
}

// float16 storage: A, W and their shared tiles in half precision (converted by PTX's cvt), the
// products summed in float32 registers, C in float32.
TEST(CUDATemplatesTest, DenseFloat16StorageSampledConfigsBuild) {
  DenseShape shape{128, 96, 64};
  space::ConfigSpace s = DenseCUDASpace(shape);
  const ir::DataType f16 = ir::DataType::Float(16), f32 = ir::DataType::Float(32);
  ScheduledOp op = DenseCUDA(shape, s.Fallback(), f16);
  EXPECT_EQ(op.args[0].dtype(), f16);
  EXPECT_EQ(op.args[1].dtype(), f16);
  EXPECT_EQ(op.args[2].dtype(), f32);
  EXPECT_THROW(DenseCUDA(shape, s.Fallback(), ir::DataType::Int(8)), tessera::UserError);
  std::string source = BuildAll("dense_f16", Sample(s, 8, 5), [&](const space::ConfigEntity& c) {
    return DenseCUDA(shape, c, f16);
  });
  if (source.empty()) return;
  EXPECT_NE(source.find("__shared__ __align__(16) tessera_half"), std::string::npos);
  EXPECT_NE(source.find("tessera_half2float("), std::string::npos);
  EXPECT_NE(source.find("__align__(16) float"), std::string::npos);  // the float accumulators
}

TEST(CUDATemplatesTest, Conv2dSampledConfigsBuild) {
  Conv2dShape shape{1, 16, 14, 14, 32, 3, 3, 1, 1};
  space::ConfigSpace s = Conv2dNCHWCUDASpace(shape);
  BuildAll("conv", Sample(s, 6, 4),
           [&](const space::ConfigEntity& c) { return Conv2dNCHWCUDA(shape, c); });
}

TEST(CUDATemplatesTest, DepthwiseSampledConfigsBuild) {
  Conv2dShape shape{1, 32, 28, 28, 32, 3, 3, 2, 1};
  space::ConfigSpace s = DepthwiseConv2dCUDASpace(shape);
  BuildAll("dw", Sample(s, 6, 5),
           [&](const space::ConfigEntity& c) { return DepthwiseConv2dCUDA(shape, c); });
}

TEST(CUDATemplatesTest, InjectiveDefaultBuilds) {
  te::Tensor a = te::placeholder({3, 50, 7}, ir::DataType::Float(32), "a");
  te::Tensor b = te::placeholder({7}, ir::DataType::Float(32), "b");
  te::Tensor c = te::compute(
      {3, 50, 7}, [&](ir::Var i, ir::Var j, ir::Var k) { return ir::max(a(i, j, k) + b(k), 0.0f); },
      "relu_add");
  std::vector<space::ConfigEntity> one = {space::ConfigSpace().Fallback()};
  BuildAll("injective", one, [&](const space::ConfigEntity&) {
    te::Schedule s = te::create_schedule({c});
    ScheduleInjectiveCUDA(s[c]);
    return ScheduledOp{s, {a, b, c}, 0};
  });
}

}  // namespace
}  // namespace topi
}  // namespace tessera
