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

}  // namespace
}  // namespace task
}  // namespace tessera
