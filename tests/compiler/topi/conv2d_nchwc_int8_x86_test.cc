// The int8 blocked convolution: sampled configs of its space against the reference evaluator on
// the LLVM (VNNI or not) and C backends, and against a scalar int8 convolution with zero points
// written here, padding included.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "compiler/space/mutation.h"
#include "compiler/support/error.h"
#include "compiler/te/reference_evaluator.h"
#include "compiler/topi/conv2d_nchwc_x86.h"
#include "tests/compiler/testing/llvm_backend.h"
#include "tests/compiler/testing/reference_check.h"

namespace tessera {
namespace topi {
namespace {

TEST(Conv2dNCHWcInt8X86Test, SampledConfigsMatchTheReference) {
  const int32_t zero_point_128 = static_cast<int32_t>(0x80808080u);
  for (Conv2dShape shape :
       {Conv2dShape{1, 16, 6, 6, 32, 3, 3, 1, 1}, Conv2dShape{1, 8, 7, 7, 16, 3, 3, 2, 1},
        Conv2dShape{1, 32, 5, 5, 16, 1, 1, 1, 0}, Conv2dShape{1, 16, 6, 6, 16, 3, 3, 1, 1, 2}}) {
    space::ConfigSpace s = Conv2dNCHWcX86Space(Conv2dWords(shape));
    std::mt19937_64 rng(7);
    std::vector<space::ConfigEntity> configs = {s.Fallback(), s.Get(0), s.Get(s.size() - 1)};
    for (int i = 0; i < 4; ++i) configs.push_back(space::RandomConfig(s, rng));
    for (const auto& config : configs) {
      ScheduledOp op = Conv2dNCHWcInt8X86(shape, config, zero_point_128);
      EXPECT_DOUBLE_EQ(op.flops, 2.0 * shape.n * shape.k * shape.oh() * shape.ow() *
                                     shape.group_c() * shape.r * shape.s);
      EXPECT_EQ(
          testing::CheckAgainstReference(op.schedule, op.args, "conv", 3,
                                         testing::ExactOnRandomWords(testing::LLVMBackend(), 5)),
          "")
          << "LLVM native: " << config.ToString();
      EXPECT_EQ(testing::CheckAgainstReference(
                    op.schedule, op.args, "conv", 3,
                    testing::ExactOnRandomWords(testing::LLVMBackend("llvm -mcpu=x86-64-v3"), 5)),
                "")
          << "LLVM without VNNI: " << config.ToString();
    }
    const ScheduledOp fallback = Conv2dNCHWcInt8X86(shape, s.Fallback(), zero_point_128);
    EXPECT_EQ(testing::CheckAgainstReference(fallback.schedule, fallback.args, "conv", 3,
                                             testing::ExactOnRandomWords(testing::CBackend(), 5)),
              "")
        << "C";
  }
}

// The template's definition is an int8 convolution: bytes packed into words as the header says,
// padding at the input's zero point, so result − zero point × Σ w = Σ (x − zero point) × w over
// the taps inside the input.
TEST(Conv2dNCHWcInt8X86Test, ComputesTheInt8ConvolutionWithItsZeroPoint) {
  const Conv2dShape sh{1, 8, 5, 5, 16, 3, 3, 1, 1};
  const int zx = 37;
  const space::ConfigEntity config = Conv2dNCHWcX86Space(Conv2dWords(sh)).Fallback();
  const auto [ic, oc_bn] = Conv2dNCHWcBlocks(config);
  std::mt19937 rng(3);
  std::vector<int> x(sh.c * sh.h * sh.w), w(sh.k * sh.c * sh.r * sh.s);
  for (int& v : x) v = static_cast<int>(rng() % 256);
  for (int& v : w) v = static_cast<int>(rng() % 256) - 128;
  auto X = [&](int64_t c, int64_t y, int64_t q) { return x[(c * sh.h + y) * sh.w + q]; };
  auto W = [&](int64_t k, int64_t c, int64_t r, int64_t q) {
    return w[((k * sh.c + c) * sh.r + r) * sh.s + q];
  };
  const int64_t cb = sh.c / 4 / ic;
  std::vector<double> data, kernel;
  for (int64_t b = 0; b < cb; ++b)
    for (int64_t y = 0; y < sh.h; ++y)
      for (int64_t q = 0; q < sh.w; ++q)
        for (int64_t cw = 0; cw < ic; ++cw) {
          uint32_t word = 0;
          for (int byte = 0; byte < 4; ++byte)
            word |= static_cast<uint32_t>(X((b * ic + cw) * 4 + byte, y, q)) << (8 * byte);
          data.push_back(static_cast<int32_t>(word));
        }
  for (int64_t kb = 0; kb < sh.k / oc_bn; ++kb)
    for (int64_t b = 0; b < cb; ++b)
      for (int64_t r = 0; r < sh.r; ++r)
        for (int64_t q = 0; q < sh.s; ++q)
          for (int64_t cw = 0; cw < ic; ++cw)
            for (int64_t ko = 0; ko < oc_bn; ++ko) {
              uint32_t word = 0;
              for (int byte = 0; byte < 4; ++byte) {
                word |= static_cast<uint32_t>(static_cast<uint8_t>(
                            W(kb * oc_bn + ko, (b * ic + cw) * 4 + byte, r, q)))
                        << (8 * byte);
              }
              kernel.push_back(static_cast<int32_t>(word));
            }
  const ScheduledOp op = Conv2dNCHWcInt8X86(sh, config, zx * 0x01010101);
  te::ReferenceEvaluator ref;
  ref.SetInput(op.args[0], data);
  ref.SetInput(op.args[1], kernel);
  const std::vector<double> out = ref.Compute(op.args[2]);
  for (int64_t k = 0; k < sh.k; ++k) {
    int64_t sum_w = 0;
    for (int64_t c = 0; c < sh.c; ++c)
      for (int64_t r = 0; r < sh.r; ++r)
        for (int64_t q = 0; q < sh.s; ++q) sum_w += W(k, c, r, q);
    for (int64_t y = 0; y < sh.oh(); ++y)
      for (int64_t q = 0; q < sh.ow(); ++q) {
        int64_t expected = 0;
        for (int64_t c = 0; c < sh.c; ++c)
          for (int64_t r = 0; r < sh.r; ++r)
            for (int64_t t = 0; t < sh.s; ++t) {
              const int64_t iy = y + r - 1, ix = q + t - 1;
              if (iy < 0 || iy >= sh.h || ix < 0 || ix >= sh.w) continue;
              expected += (X(c, iy, ix) - zx) * W(k, c, r, t);
            }
        const double got = out[((k / oc_bn * sh.oh() + y) * sh.ow() + q) * oc_bn + k % oc_bn];
        ASSERT_EQ(static_cast<int64_t>(got) - zx * sum_w, expected) << k << " " << y << " " << q;
      }
  }
}

TEST(Conv2dNCHWcInt8X86Test, RefusesChannelsThatAreNoMultipleOfFour) {
  const Conv2dShape shape{1, 6, 4, 4, 16, 3, 3, 1, 1};
  EXPECT_THAT(
      [&] {
        try {
          Conv2dNCHWcInt8X86(shape, Conv2dNCHWcX86Space({1, 1, 4, 4, 16, 3, 3, 1, 1}).Fallback());
        } catch (const UserError& e) {
          throw std::runtime_error(e.what());
        }
      },
      ::testing::ThrowsMessage<std::runtime_error>(
          ::testing::HasSubstr("the input channels of a group (6) must be a multiple of 4")));
}

}  // namespace
}  // namespace topi
}  // namespace tessera
