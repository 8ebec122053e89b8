// CUDA C generation without a GPU or the toolkit: golden source of small kernels, vector types
// for aligned vectorized accesses, shared memory with barriers, fast math only when asked.
#include "compiler/codegen/cuda/codegen_cuda.h"

#include <gtest/gtest.h>

#include <iostream>

#include "compiler/ir/op.h"
#include "tests/compiler/codegen/cuda/cuda_test_util.h"

namespace tessera {
namespace codegen {
namespace {

std::string Kernels(const testing::GPUSchedule& g, const std::string& name,
                    CUDACodeGenOptions options = {}) {
  lower::HostDeviceSplit split = lower::LowerForGPU(g.schedule, g.args, name);
  std::string src = GenerateCUDA(split.kernels, options);
  // Only the kernels: the prelude is the same for every module.
  return src.substr(src.find("extern \"C\""));
}

TEST(CodeGenCUDATest, ElementwiseGolden) {
  std::string src = Kernels(
      testing::Elementwise(1024, 128, 1, [](ir::Expr x) { return x * 2.0f + 1.0f; }), "scale");
  EXPECT_EQ(src,
            "extern \"C\" __global__ void __launch_bounds__(128)\n"
            "scale_kernel0(float* __restrict__ B, float* __restrict__ A) {\n"
            "  const int32_t B_i_outer_outer = (int)blockIdx.x;\n"
            "  const int32_t B_i_outer_inner = (int)threadIdx.x;\n"
            "  B[((B_i_outer_outer * 128) + B_i_outer_inner)] = ((A[((B_i_outer_outer * 128) + "
            "B_i_outer_inner)] * 2.0f) + 1.0f);\n"
            "}\n\n");
}

TEST(CodeGenCUDATest, VectorizedGolden) {
  std::string src =
      Kernels(testing::Elementwise(1024, 64, 4, [](ir::Expr x) { return x * 2.0f; }), "vscale");
  EXPECT_EQ(src,
            "extern \"C\" __global__ void __launch_bounds__(64)\n"
            "vscale_kernel0(float* __restrict__ B, float* __restrict__ A) {\n"
            "  const int32_t B_i_outer_outer = (int)blockIdx.x;\n"
            "  const int32_t B_i_outer_inner = (int)threadIdx.x;\n"
            "  {\n"
            "    const float4 vec_load0 = *(const float4*)(A + ((B_i_outer_outer * 256) + "
            "(B_i_outer_inner * 4)));\n"
            "    float vec_value[4];\n"
            "    #pragma unroll\n"
            "    for (int lane = 0; lane < 4; ++lane) vec_value[lane] = (((const "
            "float*)&vec_load0)[lane] * 2.0f);\n"
            "    *(float4*)(B + ((B_i_outer_outer * 256) + (B_i_outer_inner * 4))) = "
            "make_float4(vec_value[0], vec_value[1], vec_value[2], vec_value[3]);\n"
            "  }\n"
            "}\n\n");
}

TEST(CodeGenCUDATest, TiledMatmulUsesSharedMemoryAndBarriers) {
  std::string src = Kernels(testing::TiledMatmul(64, 8, 2, 8), "mm");
  // The A and B tiles cover the block's 16 rows / columns × the k step of 8, filled by the
  // 8 × 8 threads in two passes; a barrier before the fill (the previous step's readers) and
  // one after it.
  EXPECT_NE(src.find("__global__ void __launch_bounds__(64)\nmm_kernel0("), std::string::npos);
  EXPECT_NE(src.find("__shared__ __align__(16) float A_shared[128];"), std::string::npos) << src;
  EXPECT_NE(src.find("__shared__ __align__(16) float B_shared[128];"), std::string::npos) << src;
  EXPECT_NE(src.find("__align__(16) float C_local[4];"), std::string::npos) << src;
  size_t first = src.find("__syncthreads();"), fill = src.find("A_shared[(((A_shared");
  size_t second = src.find("__syncthreads();", first + 1), use = src.find("* B_shared[");
  ASSERT_NE(second, std::string::npos) << src;
  EXPECT_LT(first, fill);
  EXPECT_LT(fill, second);
  EXPECT_LT(second, use);
  EXPECT_EQ(src.find("__syncthreads();", second + 1), std::string::npos) << src;
}

TEST(CodeGenCUDATest, FastMathOnlyWhenAsked) {
  auto g = testing::Elementwise(256, 64, 1, [](ir::Expr x) { return ir::exp(x); });
  EXPECT_NE(Kernels(g, "e").find("expf("), std::string::npos);
  EXPECT_EQ(Kernels(g, "e").find("__expf("), std::string::npos);
  CUDACodeGenOptions fast;
  fast.fast_math = true;
  EXPECT_NE(Kernels(g, "e", fast).find("__expf("), std::string::npos);
}

}  // namespace
}  // namespace codegen
}  // namespace tessera
