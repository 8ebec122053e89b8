#include "compiler/topi/depthwise_conv2d_nchwc_x86.h"

#include <gtest/gtest.h>

#include <random>

#include "compiler/ir/op.h"
#include "compiler/space/mutation.h"
#include "compiler/support/error.h"
#include "compiler/te/tensor.h"
#include "compiler/topi/row_parts.h"
#include "tests/compiler/testing/llvm_backend.h"
#include "tests/compiler/testing/reference_check.h"

namespace tessera {
namespace topi {
namespace {

// The blocked depthwise convolution of `config` computes what the reference evaluator does,
// compiled by the C and the LLVM backends.
void ExpectDepthwiseMatchesTheReference(const Conv2dShape& shape,
                                        const space::ConfigEntity& config) {
  ScheduledOp op = DepthwiseConv2dNCHWcX86(shape, config);
  EXPECT_EQ(testing::CheckAgainstReference(op.schedule, op.args, "dwc", 8), "")
      << "C backend: " << config.ToString();
  EXPECT_EQ(testing::CheckAgainstReference(op.schedule, op.args, "dwc", 8, testing::LLVMBackend()),
            "")
      << "LLVM backend: " << config.ToString();
}

// Every sampled config computes what the schedule-free compute does, strided and padded or not.
TEST(DepthwiseConv2dNCHWcX86Test, SampledConfigsMatchTheReference) {
  for (Conv2dShape shape :
       {Conv2dShape{1, 8, 8, 8, 8, 3, 3, 1, 1}, Conv2dShape{2, 12, 9, 9, 12, 3, 3, 2, 1},
        Conv2dShape{1, 4, 6, 6, 4, 3, 3, 1, 0}}) {
    space::ConfigSpace s = DepthwiseConv2dNCHWcX86Space(shape);
    std::mt19937_64 rng(11);
    std::vector<space::ConfigEntity> configs = {s.Get(0), s.Get(s.size() - 1)};
    for (int i = 0; i < 4; ++i) configs.push_back(space::RandomConfig(s, rng));
    for (const auto& config : configs) {
      ExpectDepthwiseMatchesTheReference(shape, config);
    }
  }
}

// Rows split into one part per thread, the padded copy (pad_inline 0) split by rows too.
TEST(DepthwiseConv2dNCHWcX86Test, RowPartsMatchTheReference) {
  int split = 0;
  for (int64_t threads : {2, 3}) {
    VectorUnit unit;
    unit.threads = threads;
    for (Conv2dShape shape :
         {Conv2dShape{1, 8, 12, 6, 8, 3, 3, 1, 1}, Conv2dShape{2, 4, 18, 5, 4, 3, 3, 2, 1}}) {
      space::ConfigSpace s = DepthwiseConv2dNCHWcX86Space(shape, unit);
      std::mt19937_64 rng(9);
      std::vector<space::ConfigEntity> configs = {s.Fallback()};
      for (int i = 0; i < 5; ++i) configs.push_back(space::RandomConfig(s, rng));
      for (const auto& config : configs) {
        if (RowPartsOf(config, shape.oh() / config.Split("tile_oh")[1]) > 1) ++split;
        ExpectDepthwiseMatchesTheReference(shape, config);
      }
    }
  }
  EXPECT_GE(split, 8);
}

ir::Expr I(int64_t v) { return ir::IntImm(ir::DataType::Int(32), v); }

// The fused epilogue (bias and ReLU6) of the blocked depthwise template, written from its tile.
TEST(DepthwiseConv2dNCHWcX86Test, FusedEpilogueMatchesTheReference) {
  const Conv2dShape shape{1, 8, 7, 7, 8, 3, 3, 2, 1};
  space::ConfigSpace s = DepthwiseConv2dNCHWcX86Space(shape);
  std::mt19937_64 rng(3);
  std::vector<space::ConfigEntity> configs = {s.Fallback(), s.Get(0), s.Get(s.size() - 1)};
  for (int i = 0; i < 3; ++i) configs.push_back(space::RandomConfig(s, rng));
  for (const auto& config : configs) {
    const int64_t bn = DepthwiseConv2dNCHWcBlock(config);
    std::vector<ir::Expr> out_shape = {I(1), I(8 / bn), I(shape.oh()), I(shape.ow()), I(bn)};
    te::Tensor bias = te::placeholder({I(8)}, ir::DataType::Float(32), "bias");
    OutputEpilogue epilogue;
    epilogue.inputs = {bias};
    epilogue.apply = [&](const te::Tensor& conv) {
      return te::compute(
          out_shape,
          [&](const std::vector<ir::Var>& i) {
            ir::Expr v =
                conv(std::vector<ir::Expr>(i.begin(), i.end())) + bias(i[1] * I(bn) + i[4]);
            return ir::min(ir::max(v, ir::const_like(v, 0)), ir::const_like(v, 6));
          },
          "relu6");
    };
    ScheduledOp op = DepthwiseConv2dNCHWcX86(shape, config, &epilogue);
    ASSERT_EQ(op.args.size(), 4u);  // data, kernel, bias, output
    EXPECT_EQ(testing::CheckAgainstReference(op.schedule, op.args, "dw_epilogue", 4,
                                             testing::LLVMBackend()),
              "")
        << config.ToString();
  }
}

// depthwise_conv2d_NCHWc.arm: the x86 knobs, rows of up to 16 columns in the fallback where
// their accumulators and the taps fit NEON's 32 registers (3x3; a 5x5 kernel keeps 8); its
// fallback computes the reference.
TEST(DepthwiseConv2dNCHWcX86Test, ArmFallbackTilesLongerRows) {
  const VectorUnit neon{4, 32, 512 << 10};
  const Conv2dShape three{1, 8, 28, 28, 8, 3, 3, 1, 1}, five{1, 8, 28, 28, 8, 5, 5, 1, 2};
  space::ConfigEntity fallback = DepthwiseConv2dNCHWcArmSpace(three, neon).Fallback();
  EXPECT_EQ(fallback.Split("tile_oh"), (std::vector<int64_t>{-1, 1}));
  EXPECT_EQ(fallback.Split("tile_ow"), (std::vector<int64_t>{-1, 14}));
  EXPECT_EQ(DepthwiseConv2dNCHWcArmSpace(five, neon).Fallback().Split("tile_ow"),
            (std::vector<int64_t>{-1, 7}));
  EXPECT_EQ(DepthwiseConv2dNCHWcArmSpace(three, neon).size(),
            DepthwiseConv2dNCHWcX86Space(three, neon).size());
  ScheduledOp op = DepthwiseConv2dNCHWcX86(three, fallback);
  EXPECT_EQ(testing::CheckAgainstReference(op.schedule, op.args, "dwc", 9, testing::LLVMBackend()),
            "");
}

TEST(DepthwiseConv2dNCHWcX86Test, FallbackBlocksOneVector) {
  space::ConfigSpace s = DepthwiseConv2dNCHWcX86Space({1, 32, 14, 14, 32, 3, 3, 1, 1});
  EXPECT_EQ(DepthwiseConv2dNCHWcBlock(s.Fallback()), 16);  // AVX-512, the default
  const Conv2dShape neon_shape{1, 32, 14, 14, 32, 3, 3, 1, 1};
  EXPECT_EQ(DepthwiseConv2dNCHWcBlock(DepthwiseConv2dNCHWcX86Space(neon_shape, {4, 32}).Fallback()),
            4);
  // A model build hands an untuned one its producer's block.
  space::ConfigEntity wide = DepthwiseConv2dNCHWcWithBlock(s, s.Fallback(), 32);
  EXPECT_EQ(DepthwiseConv2dNCHWcBlock(wide), 32);
  EXPECT_EQ(wide.Split("tile_ow"), s.Fallback().Split("tile_ow"));
  ScheduledOp op = DepthwiseConv2dNCHWcX86({1, 32, 14, 14, 32, 3, 3, 1, 1}, s.Fallback());
  EXPECT_EQ(testing::CheckAgainstReference(op.schedule, op.args, "dwc", 3, testing::LLVMBackend()),
            "");
  EXPECT_THROW(DepthwiseConv2dNCHWcX86Space({1, 4, 8, 8, 8, 3, 3, 1, 1}), UserError);
}

}  // namespace
}  // namespace topi
}  // namespace tessera
