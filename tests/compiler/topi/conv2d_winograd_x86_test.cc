#include "compiler/topi/conv2d_winograd_x86.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "compiler/ir/op.h"
#include "compiler/space/mutation.h"
#include "compiler/support/error.h"
#include "compiler/te/tensor.h"
#include "tests/compiler/testing/llvm_backend.h"
#include "tests/compiler/testing/reference_check.h"

namespace tessera {
namespace topi {
namespace {

using ::testing::HasSubstr;

std::string ErrorOf(const Conv2dShape& shape) {
  try {
    Conv2dWinogradX86Space(shape);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(Conv2dWinogradX86Test, SpaceOfResNetLayers) {
  space::ConfigSpace s = Conv2dWinogradX86Space({1, 64, 56, 56, 64, 3, 3, 1, 1});
  EXPECT_EQ(s.knob("tile_m").choices.size(), 2u);  // 4x4 and 2x2 tiles
  space::ConfigEntity f = s.Fallback();
  EXPECT_EQ(WinogradTile(f), 4);
  EXPECT_EQ(Conv2dNCHWcBlocks(f).ic_bn, 16);
  EXPECT_EQ(Conv2dNCHWcBlocks(f).oc_bn, 32);
  EXPECT_EQ(f.Value("rows"), 1);  // 590 KB of transformed weights: once per row
  // 14x14: 2x2 tiles only; 9 MB of weights once per image.
  space::ConfigEntity layer3 = Conv2dWinogradX86Space({1, 256, 14, 14, 256, 3, 3, 1, 1}).Fallback();
  EXPECT_EQ(WinogradTile(layer3), 2);
  EXPECT_EQ(layer3.Value("rows"), 28);
  EXPECT_TRUE(WinogradApplies({1, 8, 6, 6, 8, 3, 3, 1, 1}));
  EXPECT_FALSE(WinogradApplies({1, 512, 7, 7, 512, 3, 3, 1, 1}));  // odd output
  EXPECT_FALSE(WinogradApplies({1, 64, 56, 56, 128, 3, 3, 2, 1}));
  EXPECT_FALSE(WinogradApplies({1, 64, 56, 56, 64, 1, 1, 1, 0}));
  EXPECT_THAT(ErrorOf({1, 64, 56, 56, 128, 3, 3, 2, 1}),
              HasSubstr("conv2d_winograd: needs a 3x3 kernel, stride 1, padding at most 2 and an "
                        "even output, got a 3x3 kernel, stride 2, padding 1, output 28x28"));
  EXPECT_THAT(ErrorOf({1, 8, 7, 7, 8, 3, 3, 1, 1}), HasSubstr("output 7x7"));
}

// The transformed weights of a kernel that is one tap: G e_r e_sᵀ Gᵀ is the outer product of
// two columns of G.
// The one rule for direct or Winograd (model builds and the tuner's estimate): the Winograd
// record wins when it plus its transformed weights' extra reads at 10 GB/s is faster.
TEST(Conv2dWinogradX86Test, WinogradBeatsDirectByMoreThanItsExtraWeightReads) {
  const Conv2dShape s{1, 64, 56, 56, 64, 3, 3, 1, 1};
  // F(4x4): (36 - 9) × 64 × 64 floats more; F(2x2): (16 - 9) × 64 × 64.
  EXPECT_DOUBLE_EQ(WinogradExtraWeightSeconds(s, 4), 4.0 * 27 * 64 * 64 / 10e9);
  EXPECT_DOUBLE_EQ(WinogradExtraWeightSeconds(s, 2), 4.0 * 7 * 64 * 64 / 10e9);
  // A board's memory (a Raspberry Pi 4 core: 4 GB/s) makes the extra weights cost more.
  EXPECT_DOUBLE_EQ(WinogradExtraWeightSeconds(s, 4, 4e9), 4.0 * 27 * 64 * 64 / 4e9);
  EXPECT_TRUE(WinogradBeatsDirect(s, 1e-3, 1e-3 - WinogradExtraWeightSeconds(s, 4) - 1e-6, 4));
  EXPECT_FALSE(
      WinogradBeatsDirect(s, 1e-3, 1e-3 - WinogradExtraWeightSeconds(s, 4) - 1e-6, 4, 4e9));
  const double extra4 = WinogradExtraWeightSeconds(s, 4);  // 44 us
  EXPECT_TRUE(WinogradBeatsDirect(s, 1e-3, 0.5e-3, 4));
  EXPECT_TRUE(WinogradBeatsDirect(s, 1e-3, 1e-3 - extra4 - 1e-6, 4));
  EXPECT_FALSE(WinogradBeatsDirect(s, 0.5e-3 + extra4, 0.5e-3, 4));  // a tie keeps the direct
  EXPECT_FALSE(WinogradBeatsDirect(s, 1e-3, 1e-3 - extra4 + 1e-6, 4));
  EXPECT_TRUE(WinogradBeatsDirect(s, 1e-3, 1e-3 - extra4 + 1e-6, 2));  // smaller tiles, less
  EXPECT_FALSE(WinogradBeatsDirect(s, 1e-3, 2e-3, 2));
  // No direct record: a Winograd record wins; no Winograd record never does.
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(WinogradBeatsDirect(s, inf, 1.0, 4));
  EXPECT_FALSE(WinogradBeatsDirect(s, inf, inf, 4));
  EXPECT_FALSE(WinogradBeatsDirect(s, 1e-3, inf, 2));
}

TEST(Conv2dWinogradX86Test, WeightsAreTheTransformedKernelInBlocks) {
  const Conv2dShape shape{1, 2, 4, 4, 2, 3, 3, 1, 1};
  std::vector<float> kernel(2 * 2 * 9, 0.f);
  kernel[(1 * 2 + 0) * 9 + 1 * 3 + 2] = 1.f;  // k=1, c=0, r=1, s=2
  // F(2x2): G's column 1 is (0, 1/2, -1/2, 0), column 2 is (0, 1/2, 1/2, 1).
  const double g1[] = {0, 0.5, -0.5, 0}, g2[] = {0, 0.5, 0.5, 1};
  std::vector<float> u = WinogradWeights(kernel, shape, 2, /*ic_bn=*/1, /*oc_bn=*/2);
  ASSERT_EQ(u.size(), 16u * 4);
  for (int xi = 0; xi < 4; ++xi) {
    for (int nu = 0; nu < 4; ++nu) {
      // U[ξ, ν, k/2=0, c=0, 0, k%2=1]
      EXPECT_FLOAT_EQ(u[((xi * 4 + nu) * 2 + 0) * 2 + 1], float(g1[xi] * g2[nu]));
      EXPECT_FLOAT_EQ(u[((xi * 4 + nu) * 2 + 0) * 2 + 0], 0.f);  // k=0
      EXPECT_FLOAT_EQ(u[((xi * 4 + nu) * 2 + 1) * 2 + 1], 0.f);  // c=1
    }
  }
  EXPECT_THROW(WinogradWeights(kernel, shape, 2, 4, 2), UserError);  // 4 does not divide 2
}

ir::Expr I(int64_t v) { return ir::IntImm(ir::DataType::Int(32), v); }

// Every schedule computes what the template's tensors say (the transforms included), with and
// without a fused epilogue, padding in a stage or in the data's halo. That the tensors are the
// convolution is checked end to end against the direct reference in
// tests/tuner/measure/task_measure_test.cc.
TEST(Conv2dWinogradX86Test, SampledConfigsMatchTheReference) {
  for (Conv2dShape shape :
       {Conv2dShape{1, 8, 8, 8, 8, 3, 3, 1, 1}, Conv2dShape{2, 4, 6, 10, 6, 3, 3, 1, 1},
        Conv2dShape{1, 4, 10, 10, 4, 3, 3, 1, 0}}) {
    space::ConfigSpace s = Conv2dWinogradX86Space(shape);
    std::mt19937_64 rng(3);
    // Several rows of tiles in one block, split between two parallel tasks by output blocks.
    std::vector<space::ConfigEntity> configs = {s.Fallback(), s.Get(s.size() - 1),
                                                s.FromValues({{"tile_ic", {-1, shape.c / 2}},
                                                              {"tile_oc", {-1, 2}},
                                                              {"tile_m", {2}},
                                                              {"tiles", {2}},
                                                              {"rows", {2}},
                                                              {"oc_parts", {2}}})};
    for (int i = 0; i < 3; ++i) configs.push_back(space::RandomConfig(s, rng));
    for (const auto& config : configs) {
      ScheduledOp op = Conv2dWinogradX86(shape, config);
      EXPECT_EQ(
          testing::CheckAgainstReference(op.schedule, op.args, "conv", 3, testing::LLVMBackend()),
          "")
          << config.ToString();
      const int64_t oc_bn = Conv2dNCHWcBlocks(config).oc_bn;
      std::vector<ir::Expr> out_shape = {I(shape.n), I(shape.k / oc_bn), I(shape.oh()),
                                         I(shape.ow()), I(oc_bn)};
      te::Tensor bias = te::placeholder({I(shape.k)}, ir::DataType::Float(32), "bias");
      OutputEpilogue epilogue;
      epilogue.inputs = {bias};
      epilogue.apply = [&](const te::Tensor& conv) {
        return te::compute(
            out_shape,
            [&](const std::vector<ir::Var>& i) {
              ir::Expr v =
                  conv(std::vector<ir::Expr>(i.begin(), i.end())) + bias(i[1] * I(oc_bn) + i[4]);
              return ir::max(v, ir::const_like(v, 0));
            },
            "relu");
      };
      ScheduledOp fused = Conv2dWinogradX86(shape, config, &epilogue, /*input_halo=*/false);
      EXPECT_EQ(testing::CheckAgainstReference(fused.schedule, fused.args, "conv_relu", 4,
                                               testing::LLVMBackend()),
                "")
          << "epilogue: " << config.ToString();
      if (shape.pad == 0) continue;
      ScheduledOp in_place = Conv2dWinogradX86(shape, config, nullptr, /*input_halo=*/true);
      testing::CheckOptions options;
      options.backend = testing::LLVMBackend();
      options.reference_args = op.args;
      options.arg_halos = {{0, 0, shape.pad, shape.pad, 0}, {}, {}};
      EXPECT_EQ(
          testing::CheckAgainstReference(in_place.schedule, in_place.args, "conv", 5, options), "")
          << "halo: " << config.ToString();
    }
  }
}

}  // namespace
}  // namespace topi
}  // namespace tessera
