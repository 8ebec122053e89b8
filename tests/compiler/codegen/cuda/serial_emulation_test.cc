// GPU schedules checked for their values without a GPU: the schedule is lowered as for a CPU
// with every loop bound to blockIdx/threadIdx run as a serial loop (each emulated thread then
// fills whole shared tiles itself, so barriers are moot) and compared with the reference
// evaluator through the C backend. This checks the values that the schedules define, with the
// regions, guards and indices the GPU lowering shares with this path, for random GPU schedules
// and sampled configs of every CUDA template. It cannot see what needs real threads (whether a
// shared tile covers the whole block, the barriers, the launch): cuda_run_test checks those on
// a GPU.
#include <gtest/gtest.h>

#include <random>

#include "compiler/codegen/c/c_module.h"
#include "compiler/codegen/llvm/codegen_llvm.h"
#include "compiler/lower/serialize_threads.h"
#include "compiler/space/mutation.h"
#include "compiler/topi/conv2d_nchw_cuda.h"
#include "compiler/topi/dense_cuda.h"
#include "compiler/topi/depthwise_conv2d_cuda.h"
#include "runtime/data_type.h"
#include "runtime/ndarray.h"
#include "tests/compiler/codegen/cuda/cuda_test_util.h"
#include "tests/compiler/testing/reference_check.h"

namespace tessera {
namespace {

testing::Backend SerialC() {
  return [](const ir::PrimFunc& f) {
    return codegen::BuildCModule({lower::SerializeThreadBindings(f)});
  };
}

std::string Check(const topi::ScheduledOp& op, uint64_t seed) {
  return testing::CheckAgainstReference(op.schedule, op.args, "emulated", seed, SerialC(), 1e-3,
                                        1e-3);
}

TEST(SerialEmulationTest, RandomGPUSchedules) {
  for (int seed = 0; seed < 16; ++seed) {
    std::mt19937 rng(seed);
    std::string desc;
    testing::GPUSchedule g = testing::RandomGPUSchedule(&rng, &desc);
    EXPECT_EQ(Check({g.schedule, g.args, 0}, seed), "") << "seed " << seed << ": " << desc;
  }
}

TEST(SerialEmulationTest, TemplateConfigs) {
  std::mt19937_64 rng(21);
  topi::DenseShape dense{32, 24, 16};
  space::ConfigSpace ds = topi::DenseCUDASpace(dense);
  topi::Conv2dShape conv{1, 4, 6, 6, 8, 3, 3, 1, 1};
  space::ConfigSpace cs = topi::Conv2dNCHWCUDASpace(conv);
  topi::Conv2dShape dw{1, 4, 9, 9, 4, 3, 3, 2, 1};
  space::ConfigSpace ws = topi::DepthwiseConv2dCUDASpace(dw);
  for (int i = 0; i < 4; ++i) {
    space::ConfigEntity c = i == 0 ? ds.Fallback() : space::RandomConfig(ds, rng);
    EXPECT_EQ(Check(topi::DenseCUDA(dense, c), i), "") << "dense.cuda " << c.ToString();
    c = i == 0 ? cs.Fallback() : space::RandomConfig(cs, rng);
    EXPECT_EQ(Check(topi::Conv2dNCHWCUDA(conv, c), i), "") << "conv2d_nchw.cuda " << c.ToString();
    c = i == 0 ? ws.Fallback() : space::RandomConfig(ws, rng);
    EXPECT_EQ(Check(topi::DepthwiseConv2dCUDA(dw, c), i), "")
        << "depthwise_conv2d.cuda " << c.ToString();
  }
}

// dense.cuda with float16 storage, emulated through LLVM (which has a half type): the halves of A
// and W, converted to float and summed in float, against the same sum in double.
TEST(SerialEmulationTest, DenseFloat16Storage) {
  const topi::DenseShape shape{32, 24, 16};
  space::ConfigSpace space = topi::DenseCUDASpace(shape);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<float> value(-1, 1);
  const DLDataType f16 = runtime::MakeDataType(kDLFloat, 16),
                   f32 = runtime::MakeDataType(kDLFloat, 32);
  for (int i = 0; i < 3; ++i) {
    space::ConfigEntity config = i == 0 ? space.Fallback() : space::RandomConfig(space, rng);
    topi::ScheduledOp op = topi::DenseCUDA(shape, config, ir::DataType::Float(16));
    // This CPU's own half conversions (x86's F16C): the JIT resolves no libgcc helper for them.
    runtime::Module mod = codegen::BuildLLVM(
        {lower::SerializeThreadBindings(lower::Lower(op.schedule, op.args, "dense_f16"))},
        {"", "native", {}});
    runtime::NDArray a = runtime::NDArray::Empty({shape.m, shape.k}, f16, runtime::CPUDevice());
    runtime::NDArray w = runtime::NDArray::Empty({shape.n, shape.k}, f16, runtime::CPUDevice());
    runtime::NDArray c = runtime::NDArray::Empty({shape.m, shape.n}, f32, runtime::CPUDevice());
    for (int64_t j = 0; j < a.NumElements(); ++j) a.Data<_Float16>()[j] = value(rng);
    for (int64_t j = 0; j < w.NumElements(); ++j) w.Data<_Float16>()[j] = value(rng);
    mod.GetFunction("dense_f16")(a, w, c);
    for (int64_t y = 0; y < shape.m; ++y) {
      for (int64_t x = 0; x < shape.n; ++x) {
        double want = 0;
        for (int64_t k = 0; k < shape.k; ++k) {
          want += static_cast<double>(a.Data<_Float16>()[y * shape.k + k]) *
                  static_cast<double>(w.Data<_Float16>()[x * shape.k + k]);
        }
        ASSERT_NEAR(c.Data<float>()[y * shape.n + x], want, 1e-5) << config.ToString();
      }
    }
  }
}

}  // namespace
}  // namespace tessera
