#include "compiler/task/task.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/support/error.h"

namespace tessera {
namespace task {
namespace {

using ::testing::HasSubstr;

std::string ErrorOf(const std::string& key) {
  try {
    Task task(key, "llvm");
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

TEST(TaskTest, WorkloadKeysAreCanonicalAndReadable) {
  Task task(" dense.x86( 64, 32,16 , float32) ", "llvm -mcpu=znver3");
  EXPECT_EQ(task.workload_key(), "dense.x86(64,32,16,float32)");
  EXPECT_EQ(task.target(), "llvm -mcpu=znver3");
  EXPECT_EQ(task.templ().name, "dense.x86");
  EXPECT_EQ(task.args().ints, (std::vector<int64_t>{64, 32, 16}));
  EXPECT_EQ(task.args().dtype, "float32");
  EXPECT_DOUBLE_EQ(task.flops(), 2.0 * 64 * 32 * 16);
  EXPECT_GT(task.config_space().size(), 1);
  EXPECT_EQ(MakeWorkloadKey("dense.x86", task.args()), task.workload_key());
}

TEST(TaskTest, FallbacksFitTheTargetsVectorRegisters) {
  const std::string conv = "conv2d_NCHWc.x86(1,64,56,56,64,3,3,1,1,float32)";
  auto unit = [&](const std::string& target) { return Task(conv, target).vector_unit(); };
  EXPECT_EQ(unit("llvm -mcpu=skylake-avx512"), (topi::VectorUnit{16, 32}));
  EXPECT_EQ(unit("llvm -mcpu=skylake-avx512 -mattr=-avx512f"), (topi::VectorUnit{8, 16}));
  EXPECT_EQ(unit("llvm -mcpu=haswell"), (topi::VectorUnit{8, 16}));
  EXPECT_EQ(unit("llvm"), (topi::VectorUnit{4, 16}));  // generic x86-64: SSE2
  EXPECT_EQ(unit("llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72"), (topi::VectorUnit{4, 32}));
  EXPECT_EQ(unit("c"), (topi::VectorUnit{4, 16}));
  // A bad target fails where it is compiled; the task keeps the default.
  EXPECT_EQ(unit("llvm -mcpu=no-such-cpu"), topi::VectorUnit{});
  // NEON: output blocks of two 4-lane vectors, not AVX-512's 16-channel vectors.
  const space::ConfigEntity neon =
      Task(conv, "llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72").config_space().Fallback();
  EXPECT_EQ(neon.Split("tile_oc"), (std::vector<int64_t>{-1, 8}));
  EXPECT_EQ(neon.Split("tile_ic"), (std::vector<int64_t>{-1, 4}));
  const space::ConfigEntity avx512 =
      Task(conv, "llvm -mcpu=skylake-avx512").config_space().Fallback();
  EXPECT_EQ(avx512.Split("tile_oc"), (std::vector<int64_t>{-1, 32}));
}

TEST(TaskTest, TheReferenceComputesTheOperator) {
  Task task("dense.x86(2,3,2,float32)", "llvm");
  std::vector<float> c = task.templ().reference(task.args(), {{1, 2, 3, 4}, {1, 0, 0, 1, 1, 1}});
  EXPECT_EQ(c, (std::vector<float>{1, 2, 3, 3, 4, 7}));
}

TEST(TaskTest, Conv2dTaskAndItsReference) {
  Task task("conv2d_NCHWc.x86(1,64,56,56,64,3,3,1,1,float32)", "llvm");
  EXPECT_DOUBLE_EQ(task.flops(), 2.0 * 64 * 56 * 56 * 64 * 9);
  // One channel, 3x3 input of ones, 3x3 kernel of ones, padding 1: counts of the neighbours.
  Task tiny("conv2d_NCHWc.x86(1,1,3,3,1,3,3,1,1,float32)", "llvm");
  std::vector<float> out =
      tiny.templ().reference(tiny.args(), {std::vector<float>(9, 1.f), std::vector<float>(9, 1.f)});
  EXPECT_EQ(out, (std::vector<float>{4, 6, 4, 6, 9, 6, 4, 6, 4}));
  EXPECT_THAT(ErrorOf("conv2d_NCHWc.x86(1,64,56,56,64,3,3,float32)"),
              HasSubstr("conv2d_NCHWc.x86 takes (N,C,H,W,K,R,S,stride,pad,float32)"));
}

// Two groups of one channel each: each output channel sees only its own input channel.
TEST(TaskTest, GroupedConv2dReference) {
  Task task("group_conv2d_NCHWc.x86(1,2,2,2,2,1,1,1,0,2,float32)", "llvm");
  EXPECT_DOUBLE_EQ(task.flops(), 2.0 * 2 * 2 * 2 * 1);
  std::vector<float> out = task.templ().reference(task.args(), {{1, 2, 3, 4, 5, 6, 7, 8}, {2, 10}});
  EXPECT_EQ(out, (std::vector<float>{2, 4, 6, 8, 50, 60, 70, 80}));
  // 4 groups, each 16 / 4 input channels: the flops count one group's reduction.
  Task resnext("group_conv2d_NCHWc.x86(1,16,8,8,32,3,3,1,1,4,float32)", "llvm");
  EXPECT_DOUBLE_EQ(resnext.flops(), 2.0 * 32 * 8 * 8 * 4 * 9);
  EXPECT_THAT(ErrorOf("group_conv2d_NCHWc.x86(1,6,8,8,8,3,3,1,1,4,float32)"),
              HasSubstr("conv2d: 4 groups do not divide 6 input and 8 output channels"));
  EXPECT_THAT(ErrorOf("group_conv2d_NCHWc.x86(1,8,8,8,8,3,3,1,1,float32)"),
              HasSubstr("group_conv2d_NCHWc.x86 takes (N,C,H,W,K,R,S,stride,pad,G,float32)"));
}

TEST(TaskTest, BatchMatmulReference) {
  Task task("batch_matmul.x86(2,1,2,2,float32)", "llvm");
  std::vector<float> c =
      task.templ().reference(task.args(), {{1, 2, 3, 4}, {1, 0, 0, 1, 2, 0, 0, 2}});
  EXPECT_EQ(c, (std::vector<float>{1, 2, 6, 8}));
}

TEST(TaskTest, DepthwiseReference) {
  Task task("depthwise_conv2d.x86(1,2,2,2,1,1,1,0,float32)", "llvm");
  std::vector<float> out = task.templ().reference(task.args(), {{1, 2, 3, 4, 5, 6, 7, 8}, {2, 10}});
  EXPECT_EQ(out, (std::vector<float>{2, 4, 6, 8, 50, 60, 70, 80}));
}

// The int8 convolution's reference is its sums (uint8 data times int8 weights, the padding the
// zero point) through the output stage a model runs: scaled per channel, a ReLU, and a uint8
// quantize-dequantize whose range tops out at 4.
TEST(TaskTest, Int8ConvReferenceRunsTheOutputStage) {
  Task task("conv2d_NCHWc_int8.x86(1,4,1,2,3,1,1,1,0,0,uint8)", "llvm");
  const std::vector<float> data = {255, 255, 255, 255, 255, 255, 255, 255};
  // Output channel 0: weights 127 (the largest sums: saturated at the top of the range); 1: -128
  // (negative sums: 0 after the ReLU); 2: a single 1 (a sum of 255, a few steps up).
  const std::vector<float> kernel = {127, 127, 127, 127, -128, -128, -128, -128, 1, 0, 0, 0};
  std::vector<float> out = task.templ().reference(task.args(), {data, kernel});
  ASSERT_EQ(out.size(), 3u * 2);
  for (int x = 0; x < 2; ++x) {
    EXPECT_FLOAT_EQ(out[x], 4.0f) << x;
    EXPECT_EQ(out[2 + x], 0.0f) << x;
    EXPECT_GE(out[4 + x], 0.0f) << x;
    EXPECT_LT(out[4 + x], 0.1f) << x;
  }
}

TEST(TaskTest, Int8ConvKeysAreChecked) {
  EXPECT_THAT(ErrorOf("conv2d_NCHWc_int8.x86(1,8,8,8,8,3,3,1,1,float32)"),
              HasSubstr("conv2d_NCHWc_int8.x86 takes "
                        "(N,C,H,W,K,R,S,stride,pad,zero_point,uint8)"));
  EXPECT_THAT(ErrorOf("conv2d_NCHWc_int8.x86(1,8,8,8,8,3,3,1,1,256,uint8)"),
              HasSubstr("the zero point 256 is no uint8 (0 to 255)"));
  EXPECT_THAT(ErrorOf("conv2d_NCHWc_int8.x86(1,8,8,8,8,1,1,1,0,3,uint8)"),
              HasSubstr("without padding the zero point changes nothing: give 0"));
  EXPECT_THAT(ErrorOf("conv2d_NCHWc_int8.x86(1,6,8,8,8,3,3,1,1,0,uint8)"),
              HasSubstr("the input channels (6) must be a multiple of 4"));
}

TEST(TaskTest, BadKeysAreUserErrorsNamingTheKey) {
  EXPECT_THAT(
      ErrorOf("conv9d.x86(1,2)"),
      HasSubstr("workload 'conv9d.x86(1,2)': unknown template 'conv9d.x86' (known: "
                "dense.x86(M,N,K,float32) dense.arm(M,N,K,float32) "
                "conv2d_NCHWc.x86(N,C,H,W,K,R,S,stride,pad,float32) "
                "group_conv2d_NCHWc.x86(N,C,H,W,K,R,S,stride,pad,G,float32) "
                "conv2d_NCHWc.arm(N,C,H,W,K,R,S,stride,pad,float32) "
                "group_conv2d_NCHWc.arm(N,C,H,W,K,R,S,stride,pad,G,float32) "
                "batch_matmul.x86(B,M,N,K,float32) batch_matmul.arm(B,M,N,K,float32) "
                "depthwise_conv2d.x86(N,C,H,W,R,S,stride,pad,float32) "
                "depthwise_conv2d_NCHWc.x86(N,C,H,W,R,S,stride,pad,float32) "
                "depthwise_conv2d_NCHWc.arm(N,C,H,W,R,S,stride,pad,float32) "
                "conv2d_winograd_NCHWc.x86(N,C,H,W,K,pad,float32) "
                "conv2d_winograd_NCHWc.arm(N,C,H,W,K,pad,float32) "
                "conv2d_NCHWc_int8.x86(N,C,H,W,K,R,S,stride,pad,zero_point,uint8) "
                "conv2d_NCHWc_int8.arm(N,C,H,W,K,R,S,stride,pad,zero_point,uint8) "
                "dense_int8.x86(M,N,K,uint8) dense_int8.arm(M,N,K,uint8) "
                "dense.cuda(M,N,K,float32) conv2d_nchw.cuda(N,C,H,W,K,R,S,"
                "stride,pad,float32) depthwise_conv2d.cuda(N,C,H,W,R,S,stride,pad,float32))"));
  EXPECT_THAT(ErrorOf("dense.x86"), HasSubstr("workload 'dense.x86' must look like name(args)"));
  EXPECT_THAT(ErrorOf("dense.x86(4,4,float32)"),
              HasSubstr("workload 'dense.x86(4,4,float32)': dense.x86 takes (M,N,K,float32)"));
  // The Arm twins name themselves.
  EXPECT_THAT(ErrorOf("dense.arm(4,4,float32)"),
              HasSubstr("workload 'dense.arm(4,4,float32)': dense.arm takes (M,N,K,float32)"));
  EXPECT_THAT(ErrorOf("batch_matmul.arm(1,4,4,float32)"),
              HasSubstr("batch_matmul.arm takes (B,M,N,K,float32)"));
  EXPECT_THAT(ErrorOf("conv2d_winograd_NCHWc.arm(1,8,8,8,8,float32)"),
              HasSubstr("conv2d_winograd_NCHWc.arm takes (N,C,H,W,K,pad,float32)"));
  EXPECT_THAT(ErrorOf("dense_int8.arm(4,4,6,uint8)"),
              HasSubstr("the reduction (6) must be a multiple of 4"));
  EXPECT_THAT(ErrorOf("conv2d_NCHWc_int8.arm(1,8,8,8,8,3,3,1,1,float32)"),
              HasSubstr("conv2d_NCHWc_int8.arm takes "));
  EXPECT_THAT(ErrorOf("dense.x86(4,4,0,float32)"), HasSubstr("dense: dimensions must be positive"));
  EXPECT_THAT(ErrorOf("dense.x86(4,4x,4,float32)"),
              HasSubstr("argument 2 ('4x') is not an integer"));
  EXPECT_THAT(ErrorOf("dense.x86(float32,4,4,4)"),
              HasSubstr("the dtype must be the last argument, got 'float32'"));
  EXPECT_THAT(ErrorOf("dense.x86(4,4,4,float16)"), HasSubstr("takes (M,N,K,float32)"));
  EXPECT_THROW(Task("dense.x86(4,4,4,float32)", ""), UserError);
  // Found by workload_key_fuzz_test: this key used to hang building the config space.
  EXPECT_THAT(ErrorOf("conv2d_NCHWc.x86(1,64,429496729728,28,64,3,3,1,1,float32)"),
              HasSubstr("argument 3 (429496729728) is larger than 16777216"));
}

}  // namespace
}  // namespace task
}  // namespace tessera
