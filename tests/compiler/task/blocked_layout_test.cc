#include "compiler/task/blocked_layout.h"

#include <gtest/gtest.h>

#include <numeric>

#include "compiler/driver/build.h"
#include "compiler/topi/dense_x86.h"
#include "compiler/topi/nchwc_layout.h"
#include "runtime/ndarray.h"

namespace tessera {
namespace task {
namespace {

std::vector<float> Iota(int64_t count) {
  std::vector<float> v(static_cast<size_t>(count));
  std::iota(v.begin(), v.end(), 0.f);
  return v;
}

// Runs a compiled transform (one input, one output) on `input`.
std::vector<float> RunCompiled(const topi::ScheduledOp& op, const std::vector<float>& input) {
  runtime::Module m = build(op.schedule, op.args, Target("llvm"), "transform");
  auto shape = [](const te::Tensor& t) {
    std::vector<int64_t> dims;
    for (const ir::Expr& e : t.shape()) dims.push_back(e.as<ir::IntImmNode>()->value);
    return dims;
  };
  auto in = runtime::NDArray::Empty(shape(op.args[0]), {kDLFloat, 32, 1}, {kDLCPU, 0});
  auto out = runtime::NDArray::Empty(shape(op.args[1]), {kDLFloat, 32, 1}, {kDLCPU, 0});
  in.CopyFromBytes(input.data(), input.size() * sizeof(float));
  m["transform"](in, out);
  return std::vector<float>(out.Data<float>(), out.Data<float>() + input.size());
}

TEST(BlockedLayoutTest, NCHWcPutsChannelBlocksInnermost) {
  // 1x4x1x2 by blocks of 2: plain (c, x) = c * 2 + x; blocked [cb][x][ci].
  std::vector<float> blocked = ToNCHWc(Iota(8), {1, 4, 1, 2}, 2);
  EXPECT_EQ(blocked, (std::vector<float>{0, 2, 1, 3, 4, 6, 5, 7}));
  EXPECT_EQ(FromNCHWc(blocked, {1, 4, 1, 2}, 2), Iota(8));
}

TEST(BlockedLayoutTest, HostConversionsMatchTheCompiledTransforms) {
  const NCHWDims d{2, 12, 3, 5};
  std::vector<float> plain = Iota(2 * 12 * 3 * 5);
  for (int64_t bn : {1, 4, 12}) {
    EXPECT_EQ(ToNCHWc(plain, d, bn), RunCompiled(topi::PackNCHWc(2, 12, 3, 5, bn), plain)) << bn;
    EXPECT_EQ(FromNCHWc(plain, d, bn), RunCompiled(topi::UnpackNCHWc(2, 12, 3, 5, bn), plain))
        << bn;
  }
  const NCHWDims w{8, 6, 3, 3};
  std::vector<float> kernel = Iota(8 * 6 * 3 * 3);
  EXPECT_EQ(ToOIHWio(kernel, w, 2, 4), RunCompiled(topi::PackOIHWio(8, 6, 3, 3, 2, 4), kernel));
  EXPECT_EQ(ToOIHWio(kernel, w, 6, 8), RunCompiled(topi::PackOIHWio(8, 6, 3, 3, 6, 8), kernel));
}

TEST(BlockedLayoutTest, DenseWeightsPackInColumnBlocks) {
  // w is 4x3 (rows n, columns k), blocks of 2 rows: packed [z][k][x] = w[z * 2 + x][k].
  std::vector<float> packed = ToColumnBlocks(Iota(12), 4, 3, 2);
  EXPECT_EQ(packed, (std::vector<float>{0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11}));
  std::vector<float> w = Iota(16 * 5);
  for (int64_t bn : {1, 8, 16}) {
    EXPECT_EQ(ToColumnBlocks(w, 16, 5, bn), RunCompiled(topi::DensePackWeights({3, 16, 5}, bn), w))
        << bn;
  }
}

// Words of four bytes: byte b of a word is channel 4 w + b of its pixel, in two's complement.
TEST(BlockedLayoutTest, BytesPackIntoWordsOfFourChannels) {
  // 8 channels of one pixel in blocks of one word: words[c / 4] holds channels 4 (c / 4) .. + 3.
  const std::vector<float> data = {1, 2, 3, 4, 255, 0, 128, 7};
  EXPECT_EQ(ToNCHWcWords(data, {1, 8, 1, 1}, 1),
            (std::vector<int32_t>{0x04030201, static_cast<int32_t>(0x078000FFu)}));
  // Blocks of two words keep a block's words per pixel: [n, c / 8, h, w, (c / 4) % 2].
  std::vector<float> two_pixels(16);
  for (int c = 0; c < 8; ++c) {
    two_pixels[c * 2] = static_cast<float>(c);           // pixel 0
    two_pixels[c * 2 + 1] = static_cast<float>(16 + c);  // pixel 1
  }
  EXPECT_EQ(ToNCHWcWords(two_pixels, {1, 8, 1, 2}, 2),
            (std::vector<int32_t>{0x03020100, 0x07060504, 0x13121110, 0x17161514}));
  // Weights [k = 2, c = 4, 1, 1], signed: words[k / oc_bn, c / 4, 0, 0, 0, k % oc_bn].
  const std::vector<float> kernel = {-1, 2, -128, 127, 0, 1, 0, -2};
  EXPECT_EQ(
      ToOIHWioWords(kernel, {2, 4, 1, 1}, 1, 2),
      (std::vector<int32_t>{static_cast<int32_t>(0x7F8002FFu), static_cast<int32_t>(0xFE000100u)}));
  EXPECT_EQ(ToOIHWioWords(kernel, {2, 4, 1, 1}, 1, 1), ToOIHWioWords(kernel, {2, 4, 1, 1}, 1, 2));
}

}  // namespace
}  // namespace task
}  // namespace tessera
