#include "compiler/topi/conv2d_nchwc_x86.h"

#include <gmock/gmock.h>
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

TEST(Conv2dNCHWcX86Test, SpaceOfAResNetLayer) {
  Conv2dShape shape{1, 64, 56, 56, 64, 3, 3, 1, 1};
  EXPECT_EQ(shape.oh(), 56);
  space::ConfigSpace s = Conv2dNCHWcX86Space(shape);
  // divisors of 64, of 56 up to 4 and up to 32; unroll_kw; border_rows
  EXPECT_EQ(s.size(), 7 * 7 * 3 * 7 * 2 * 2);
  // AVX-512 (the default vector unit): two vectors of output channels × 8 columns.
  space::ConfigEntity f = s.Fallback();
  EXPECT_EQ(f.Split("tile_ic"), (std::vector<int64_t>{-1, 16}));
  EXPECT_EQ(f.Split("tile_oh"), (std::vector<int64_t>{-1, 1}));
  EXPECT_EQ(f.Split("tile_ow"), (std::vector<int64_t>{-1, 8}));
  EXPECT_EQ(Conv2dNCHWcBlocks(f).ic_bn, 16);
  EXPECT_EQ(Conv2dNCHWcBlocks(f).oc_bn, 32);
  EXPECT_EQ(f.Value("unroll_kw"), 1);
  EXPECT_EQ(f.Value("border_rows"), 0);  // 1 of 56 rows: not worth another pass
  EXPECT_EQ(f.Value("image_acc"), 0);
  EXPECT_EQ(s.knob("image_acc").choices.size(), 1u);  // 56x56 accumulators: too many
  // Small weights: border rows apart.
  EXPECT_EQ(Conv2dNCHWcX86Space({1, 32, 14, 14, 32, 3, 3, 1, 1}).Fallback().Value("border_rows"),
            1);
  // 295 KB and 590 KB of weights per output block, small images: accumulate the image, each
  // weight read once.
  for (Conv2dShape shape :
       {Conv2dShape{1, 512, 7, 7, 512, 3, 3, 1, 1}, Conv2dShape{1, 256, 14, 14, 256, 3, 3, 1, 1}}) {
    space::ConfigEntity big = Conv2dNCHWcX86Space(shape).Fallback();
    EXPECT_EQ(big.Value("image_acc"), 1);
    EXPECT_EQ(big.Value("border_rows"), 0);
  }
  // Without padding there are no border rows to split.
  EXPECT_EQ(Conv2dNCHWcX86Space({1, 8, 6, 6, 8, 3, 3, 1, 0}).knob("border_rows").choices.size(),
            1u);
  EXPECT_THROW(Conv2dNCHWcX86Space({1, 4, 2, 2, 4, 5, 5, 1, 0}), UserError);
}

// The ResNet-18 and ResNet-50 convolutions.
std::vector<Conv2dShape> ResNetShapes() {
  return {{1, 3, 224, 224, 64, 7, 7, 2, 3},    {1, 64, 56, 56, 64, 3, 3, 1, 1},
          {1, 64, 56, 56, 128, 3, 3, 2, 1},    {1, 64, 56, 56, 128, 1, 1, 2, 0},
          {1, 128, 28, 28, 128, 3, 3, 1, 1},   {1, 256, 14, 14, 256, 3, 3, 1, 1},
          {1, 512, 7, 7, 512, 3, 3, 1, 1},     {1, 64, 56, 56, 256, 1, 1, 1, 0},
          {1, 256, 56, 56, 64, 1, 1, 1, 0},    {1, 128, 56, 56, 128, 3, 3, 2, 1},
          {1, 512, 28, 28, 128, 1, 1, 1, 0},   {1, 1024, 14, 14, 256, 1, 1, 1, 0},
          {1, 1024, 14, 14, 2048, 1, 1, 2, 0}, {1, 2048, 7, 7, 512, 1, 1, 1, 0},
          {1, 512, 7, 7, 2048, 1, 1, 1, 0}};
}

TEST(Conv2dNCHWcX86Test, FallbackTileFitsTheVectorRegisters) {
  const VectorUnit units[] = {{16, 32}, {8, 16}, {4, 32}, {4, 16}};  // AVX-512, AVX2, NEON, SSE
  for (const VectorUnit& unit : units) {
    for (const Conv2dShape& shape : ResNetShapes()) {
      SCOPED_TRACE(::testing::PrintToString(std::vector<int64_t>{
          unit.lanes, unit.registers, shape.c, shape.h, shape.k, shape.r, shape.stride}));
      space::ConfigEntity f = Conv2dNCHWcX86Space(shape, unit).Fallback();
      const Conv2dBlocks b = Conv2dNCHWcBlocks(f);
      // Whole vectors of output channels, input blocks of one vector (3 channels: all of them).
      EXPECT_EQ(b.oc_bn % unit.lanes, 0);
      EXPECT_EQ(b.ic_bn, std::min<int64_t>(shape.c, unit.lanes));
      const int64_t vectors = b.oc_bn / unit.lanes;
      const int64_t accumulators = vectors * f.Split("tile_oh")[1] * f.Split("tile_ow")[1];
      EXPECT_LE(accumulators + vectors + 1, unit.registers);  // no spills
      // Latency hidden: 8 in flight, but 7-column outputs have 7 on 16 registers (two vectors
      // × 7 columns do not fit beside the weights and a broadcast).
      EXPECT_GE(accumulators, unit.registers >= 32 || shape.oh() > 7 ? 8 : 7);
    }
  }
  // NEON: 16 channels are four vectors; two of them × 8 columns.
  space::ConfigEntity neon =
      Conv2dNCHWcX86Space({1, 64, 56, 56, 64, 3, 3, 1, 1}, {4, 32}).Fallback();
  EXPECT_EQ(Conv2dNCHWcBlocks(neon).oc_bn, 8);
  EXPECT_EQ(neon.Split("tile_ow"), (std::vector<int64_t>{-1, 8}));
}

// Channels that are no multiple of a vector (ShuffleNetV2's 58, 116, 232) take the block that
// fills its vectors best, not the largest divisor up to one vector (2, 4, 8 lanes of 16), unless
// that leaves too few accumulators, and read input blocks as long as their channels allow.
TEST(Conv2dNCHWcX86Test, FallbackOfChannelsThatAreNoMultipleOfAVector) {
  for (int64_t channels : {58, 116, 232}) {
    const space::ConfigEntity f =
        Conv2dNCHWcX86Space({1, channels, 28, 28, channels, 1, 1, 1, 0}).Fallback();
    EXPECT_EQ(Conv2dNCHWcBlocks(f).oc_bn, 58) << channels;
    EXPECT_EQ(Conv2dNCHWcBlocks(f).ic_bn, 58) << channels;
    // Four vectors of output channels: accumulators and weights still fit the 32 registers.
    EXPECT_LE(4 * f.Split("tile_oh")[1] * f.Split("tile_ow")[1] + 4 + 1, 32) << channels;
  }
  // 24 channels: two vectors of 16 and 8 lanes as full as one of 12 in 16; the longer block.
  EXPECT_EQ(Conv2dNCHWcBlocks(Conv2dNCHWcX86Space({1, 24, 8, 8, 24, 3, 3, 1, 1}).Fallback()).oc_bn,
            24);
  // SqueezeNet's classifier, 1000 channels at 13×13 (a prime width): blocks of 40 would leave
  // three accumulators; two vectors of 25 lanes (78% busy, against 62% for one of 10) keep a row
  // of 13 (26 accumulators).
  const space::ConfigEntity classifier =
      Conv2dNCHWcX86Space({1, 512, 13, 13, 1000, 1, 1, 1, 0}).Fallback();
  EXPECT_EQ(Conv2dNCHWcBlocks(classifier).oc_bn, 25);
  EXPECT_EQ(classifier.Split("tile_ow")[1], 13);
  // A whole vector divides: unchanged.
  EXPECT_EQ(Conv2dNCHWcBlocks(Conv2dNCHWcX86Space({1, 48, 8, 8, 48, 3, 3, 1, 1}).Fallback()).ic_bn,
            16);
}

TEST(Conv2dNCHWcX86Test, FallbackReadsAnotherInputBlock) {
  space::ConfigSpace s = Conv2dNCHWcX86Space({1, 64, 56, 56, 64, 3, 3, 1, 1});
  space::ConfigEntity f = s.Fallback();
  space::ConfigEntity wide = Conv2dNCHWcWithInputBlock(s, f, 32);
  EXPECT_EQ(Conv2dNCHWcBlocks(wide).ic_bn, 32);
  EXPECT_EQ(Conv2dNCHWcBlocks(wide).oc_bn, Conv2dNCHWcBlocks(f).oc_bn);
  EXPECT_EQ(wide.Split("tile_ow"), f.Split("tile_ow"));
  EXPECT_EQ(Conv2dNCHWcWithInputBlock(s, f, 3), f);  // 3 does not divide 64
}

// `op` (a convolution of `config`, arguments data, kernel, output) computes what the reference
// evaluator does, compiled by the C and the LLVM backends.
void ExpectConvMatchesTheReference(const ScheduledOp& op, const space::ConfigEntity& config) {
  EXPECT_EQ(testing::CheckAgainstReference(op.schedule, op.args, "conv", 3), "")
      << "C backend: " << config.ToString();
  EXPECT_EQ(testing::CheckAgainstReference(op.schedule, op.args, "conv", 3, testing::LLVMBackend()),
            "")
      << "LLVM backend: " << config.ToString();
}

TEST(Conv2dNCHWcX86Test, SampledConfigsMatchTheReference) {
  for (Conv2dShape shape :
       {Conv2dShape{1, 8, 6, 6, 8, 3, 3, 1, 1}, Conv2dShape{2, 4, 7, 7, 6, 3, 3, 2, 1},
        Conv2dShape{1, 6, 5, 5, 4, 1, 1, 2, 0}, Conv2dShape{1, 4, 9, 5, 4, 5, 3, 1, 2}}) {
    space::ConfigSpace s = Conv2dNCHWcX86Space(shape);
    std::mt19937_64 rng(11);
    std::vector<space::ConfigEntity> configs = {s.Fallback(), s.Get(0), s.Get(s.size() - 1)};
    for (int i = 0; i < 6; ++i) configs.push_back(space::RandomConfig(s, rng));
    for (const auto& config : configs) {
      ScheduledOp op = Conv2dNCHWcX86(shape, config);
      const Conv2dBlocks b = Conv2dNCHWcBlocks(config);
      ASSERT_EQ(op.args[0].shape().size(), 5u);  // data NCHW[ic_bn]c
      EXPECT_EQ(op.args[0].shape()[4].as<ir::IntImmNode>()->value, b.ic_bn);
      EXPECT_EQ(op.args[2].shape()[4].as<ir::IntImmNode>()->value, b.oc_bn);
      ExpectConvMatchesTheReference(op, config);
    }
  }
}

// Rows split into one part per thread (2 and 3 threads), evenly or with a shorter last part,
// with the padded copy split by rows too, and the data read in place.
TEST(Conv2dNCHWcX86Test, RowPartsMatchTheReference) {
  int split = 0;
  for (int64_t threads : {2, 3}) {
    VectorUnit unit;
    unit.threads = threads;
    for (Conv2dShape shape :
         {Conv2dShape{1, 8, 12, 6, 8, 3, 3, 1, 1}, Conv2dShape{2, 4, 9, 5, 8, 3, 3, 1, 1},
          Conv2dShape{1, 8, 16, 4, 4, 1, 1, 2, 0}}) {
      space::ConfigSpace s = Conv2dNCHWcX86Space(shape, unit);
      std::mt19937_64 rng(5);
      std::vector<space::ConfigEntity> configs = {s.Fallback()};
      for (int i = 0; i < 5; ++i) configs.push_back(space::RandomConfig(s, rng));
      for (const auto& config : configs) {
        const int64_t tiles = shape.oh() / config.Split("tile_oh")[1];
        if (RowPartsOf(config, tiles) > 1 && config.Value("image_acc") == 0) ++split;
        ExpectConvMatchesTheReference(Conv2dNCHWcX86(shape, config), config);
        ScheduledOp in_place = Conv2dNCHWcX86(shape, config, nullptr, /*input_halo=*/true);
        testing::CheckOptions options;
        options.backend = testing::LLVMBackend();
        options.reference_args = Conv2dNCHWcX86(shape, config).args;
        options.arg_halos = {{0, 0, shape.pad, shape.pad, 0}, {}, {}};
        EXPECT_EQ(
            testing::CheckAgainstReference(in_place.schedule, in_place.args, "conv", 6, options),
            "")
            << config.ToString();
      }
    }
  }
  EXPECT_GE(split, 10);  // most configs did split their rows
}

// conv2d_NCHWc.arm's space: the x86 knobs and lane_loads, the fallback loading each pixel's
// channels as one vector (NEON: 4 lanes, 32 registers).
TEST(Conv2dNCHWcArmTest, FallbackLoadsEachPixelsChannelsAsOneVector) {
  const Conv2dShape shape{1, 64, 56, 56, 128, 3, 3, 2, 1};
  const space::ConfigSpace arm = Conv2dNCHWcArmSpace(shape, VectorUnit{4, 32});
  const space::ConfigSpace x86 = Conv2dNCHWcX86Space(shape, VectorUnit{4, 32});
  EXPECT_EQ(arm.size(), 2 * x86.size());
  const space::ConfigEntity fallback = arm.Fallback();
  EXPECT_EQ(fallback.Value("lane_loads"), 1);
  EXPECT_EQ(fallback.Value("unroll_kw"), 0);
  EXPECT_EQ(x86.Fallback().Value("unroll_kw"), 1);  // x86 broadcasts from memory instead
  EXPECT_EQ(fallback.Split("tile_ic"), x86.Fallback().Split("tile_ic"));
  EXPECT_EQ(fallback.Split("tile_oc"), x86.Fallback().Split("tile_oc"));
}

// The core's L2 bounds the weights a block reads (a 512 KB cortex-a76 core: a 512-channel 7x7
// layer's 147 KB block is a large share of it), but the Arm fallback keeps the register tile's
// accumulators in registers, border rows apart, where the x86 one would take the whole image's.
TEST(Conv2dNCHWcArmTest, FallbackKeepsTheAccumulatorsInRegisters) {
  const Conv2dShape shape{1, 512, 7, 7, 512, 3, 3, 1, 1};
  const VectorUnit a76{4, 32, 512 << 10};
  EXPECT_EQ(Conv2dNCHWcX86Space(shape, a76).Fallback().Value("image_acc"), 1);
  EXPECT_EQ(Conv2dNCHWcX86Space(shape, VectorUnit{4, 32}).Fallback().Value("image_acc"), 0)
      << "1 MB of L2";
  const space::ConfigEntity arm = Conv2dNCHWcArmSpace(shape, a76).Fallback();
  EXPECT_EQ(arm.Value("image_acc"), 0);
  EXPECT_EQ(arm.Value("border_rows"), 1);
}

// Every nest with the block's channels unrolled inside the kernel columns (register tile, border
// rows apart, image accumulators; kernel columns unrolled or not) computes the convolution.
TEST(Conv2dNCHWcArmTest, LaneLoadsMatchTheReference) {
  for (Conv2dShape shape :
       {Conv2dShape{1, 8, 6, 6, 8, 3, 3, 1, 1}, Conv2dShape{2, 4, 7, 7, 6, 3, 3, 2, 1},
        Conv2dShape{1, 4, 9, 5, 4, 5, 3, 1, 2}}) {
    space::ConfigSpace s = Conv2dNCHWcArmSpace(shape, VectorUnit{4, 32});
    const int64_t borders_apart = s.knob("border_rows").choices.size() > 1 ? 1 : 0;
    std::vector<space::ConfigEntity> configs = {s.Fallback()};
    for (int64_t unroll_kw : {0, 1}) {
      for (int64_t image_acc : {0, 1}) {
        configs.push_back(s.FromValues({{"tile_ic", {-1, 4}},
                                        {"tile_oc", {-1, shape.k % 4 == 0 ? 4 : 2}},
                                        {"tile_oh", {-1, 1}},
                                        {"tile_ow", {-1, 1}},
                                        {"unroll_kw", {unroll_kw}},
                                        {"border_rows", {image_acc ? 0 : borders_apart}},
                                        {"image_acc", {image_acc}},
                                        {"lane_loads", {1}}}));
      }
    }
    for (const auto& config : configs) {
      ScheduledOp op = Conv2dNCHWcX86(shape, config);
      ExpectConvMatchesTheReference(op, config);
    }
  }
}

ir::Expr I(int64_t v) { return ir::IntImm(ir::DataType::Int(32), v); }

// The fused epilogue (per-channel bias, a residual read in the output's layout, ReLU) is written
// from the register tile, border rows split or not, and computes what the unscheduled graph does.
TEST(Conv2dNCHWcX86Test, FusedEpilogueMatchesTheReference) {
  for (Conv2dShape shape :
       {Conv2dShape{1, 8, 6, 6, 8, 3, 3, 1, 1}, Conv2dShape{1, 4, 7, 7, 6, 3, 3, 2, 1}}) {
    space::ConfigSpace s = Conv2dNCHWcX86Space(shape);
    std::mt19937_64 rng(5);
    std::vector<space::ConfigEntity> configs = {s.Fallback(), s.Get(0), s.Get(s.size() - 1)};
    for (int i = 0; i < 4; ++i) configs.push_back(space::RandomConfig(s, rng));
    for (const auto& config : configs) {
      const int64_t oc_bn = Conv2dNCHWcBlocks(config).oc_bn;
      std::vector<ir::Expr> out_shape = {I(shape.n), I(shape.k / oc_bn), I(shape.oh()),
                                         I(shape.ow()), I(oc_bn)};
      te::Tensor bias = te::placeholder({I(shape.k)}, ir::DataType::Float(32), "bias");
      te::Tensor skip = te::placeholder(out_shape, ir::DataType::Float(32), "skip");
      OutputEpilogue epilogue;
      epilogue.inputs = {bias, skip};
      epilogue.apply = [&](const te::Tensor& conv) {
        te::Tensor added = te::compute(
            out_shape,
            [&](const std::vector<ir::Var>& i) {
              std::vector<ir::Expr> e(i.begin(), i.end());
              return conv(e) + bias(i[1] * I(oc_bn) + i[4]) + skip(e);
            },
            "added");
        return te::compute(
            out_shape,
            [&](const std::vector<ir::Var>& i) {
              ir::Expr v = added(std::vector<ir::Expr>(i.begin(), i.end()));
              return ir::max(v, ir::const_like(v, 0));
            },
            "relu");
      };
      ScheduledOp op = Conv2dNCHWcX86(shape, config, &epilogue);
      ASSERT_EQ(op.args.size(), 5u);  // data, kernel, bias, skip, output
      EXPECT_EQ(testing::CheckAgainstReference(op.schedule, op.args, "conv_epilogue", 4), "")
          << "C backend: " << config.ToString();
      EXPECT_EQ(testing::CheckAgainstReference(op.schedule, op.args, "conv_epilogue", 4,
                                               testing::LLVMBackend()),
                "")
          << "LLVM backend: " << config.ToString();
    }
  }
}

// Image accumulators (reduction blocks outside the rows), with and without the fused epilogue,
// kernel columns unrolled or not, rows in several column chunks.
TEST(Conv2dNCHWcX86Test, ImageAccumulatorsMatchTheReference) {
  for (Conv2dShape shape :
       {Conv2dShape{1, 8, 6, 6, 8, 3, 3, 1, 1}, Conv2dShape{2, 4, 7, 7, 6, 3, 3, 2, 1},
        Conv2dShape{1, 4, 9, 5, 4, 5, 3, 1, 2}}) {
    space::ConfigSpace s = Conv2dNCHWcX86Space(shape);
    for (int64_t unroll_kw : {0, 1}) {
      space::ConfigEntity c = s.FromValues({{"tile_ic", {-1, shape.c}},
                                            {"tile_oc", {-1, shape.k % 4 == 0 ? 4 : 2}},
                                            {"tile_oh", {-1, shape.oh() % 2 == 0 ? 2 : 1}},
                                            {"tile_ow", {-1, 1}},
                                            {"unroll_kw", {unroll_kw}},
                                            {"border_rows", {0}},
                                            {"image_acc", {1}}});
      ScheduledOp op = Conv2dNCHWcX86(shape, c);
      ExpectConvMatchesTheReference(op, c);
    }
  }
}

// Data whose padding is its halo, read in place (every nest: register tile, border rows, image
// accumulators), into an output with a halo of its own, which the kernel zeroes.
TEST(Conv2dNCHWcX86Test, DataReadInItsHaloMatchesThePaddedConvolution) {
  for (Conv2dShape shape :
       {Conv2dShape{1, 8, 6, 6, 8, 3, 3, 1, 1}, Conv2dShape{2, 4, 7, 7, 6, 3, 3, 2, 1},
        Conv2dShape{1, 4, 9, 5, 4, 5, 3, 1, 2}}) {
    space::ConfigSpace s = Conv2dNCHWcX86Space(shape);
    std::mt19937_64 rng(7);
    std::vector<space::ConfigEntity> configs = {s.Fallback(), s.Get(0), s.Get(s.size() - 1)};
    for (int i = 0; i < 5; ++i) configs.push_back(space::RandomConfig(s, rng));
    for (const auto& config : configs) {
      ScheduledOp padded = Conv2dNCHWcX86(shape, config);
      ScheduledOp in_place = Conv2dNCHWcX86(shape, config, nullptr, /*input_halo=*/true);
      testing::CheckOptions options;
      options.backend = testing::LLVMBackend();
      options.reference_args = padded.args;
      options.arg_halos = {{0, 0, shape.pad, shape.pad, 0}, {}, {0, 0, 1, 1, 0}};
      EXPECT_EQ(
          testing::CheckAgainstReference(in_place.schedule, in_place.args, "conv", 5, options), "")
          << config.ToString();
      // No copy of the data into a padded buffer.
      for (const te::Stage& stage : in_place.schedule->stages) {
        EXPECT_NE(stage->op->name, "data_pad");
      }
    }
  }
}

// Grouped: the channel splits are one group's, so no block straddles two groups, and the
// fallback's output block is the largest vector-sized divisor of a group (ResNeXt-50's layer2:
// 8 channels a group, half an AVX-512 vector).
TEST(Conv2dNCHWcX86Test, GroupedSpaceSplitsOneGroup) {
  const Conv2dShape resnext{1, 256, 28, 28, 256, 3, 3, 1, 1, 32};
  EXPECT_EQ(resnext.group_c(), 8);
  space::ConfigSpace s = Conv2dNCHWcX86Space(resnext);
  EXPECT_EQ(s.knob("tile_ic").choices.size(), 4u);  // divisors of 8
  const Conv2dBlocks b = Conv2dNCHWcBlocks(s.Fallback());
  EXPECT_EQ(b.ic_bn, 8);
  EXPECT_EQ(b.oc_bn, 8);
  EXPECT_THROW(Conv2dNCHWcX86Space({1, 6, 8, 8, 8, 3, 3, 1, 1, 4}), UserError);
}

// Every schedule of the grouped template (register tiles, border rows apart, image accumulators,
// the data read in its halo) computes the grouped convolution, on both backends; the unscheduled
// compute itself is pinned by TaskTest.GroupedConv2dReference and the measured candidates.
TEST(Conv2dNCHWcX86Test, GroupedConfigsMatchTheReference) {
  for (Conv2dShape shape :
       {Conv2dShape{1, 16, 6, 6, 16, 3, 3, 1, 1, 4}, Conv2dShape{2, 12, 7, 7, 24, 3, 3, 2, 1, 3},
        Conv2dShape{1, 8, 5, 5, 8, 1, 1, 1, 0, 2}}) {
    space::ConfigSpace s = Conv2dNCHWcX86Space(shape);
    std::mt19937_64 rng(13);
    std::vector<space::ConfigEntity> configs = {s.Fallback(), s.Get(0), s.Get(s.size() - 1)};
    for (int i = 0; i < 3; ++i) configs.push_back(space::RandomConfig(s, rng));
    for (const auto& config : configs) {
      for (bool halo : {false, true}) {
        if (halo && shape.pad == 0) continue;
        ScheduledOp op = Conv2dNCHWcX86(shape, config, nullptr, halo);
        testing::CheckOptions options;
        if (halo) {
          options.reference_args = Conv2dNCHWcX86(shape, config).args;
          options.arg_halos = {{0, 0, shape.pad, shape.pad, 0}, {}, {}};
        }
        for (const testing::Backend& backend : {testing::CBackend(), testing::LLVMBackend()}) {
          options.backend = backend;
          EXPECT_EQ(testing::CheckAgainstReference(op.schedule, op.args, "conv", 3, options), "")
              << config.ToString() << (halo ? " (halo)" : "");
        }
      }
    }
  }
}

TEST(Conv2dNCHWcX86Test, DefaultScheduleMatchesTheReference) {
  ScheduledOp op = Conv2dDefault({1, 3, 5, 5, 2, 3, 3, 1, 1});
  EXPECT_DOUBLE_EQ(op.flops, 2.0 * 2 * 5 * 5 * 3 * 9);
  EXPECT_EQ(testing::CheckAgainstReference(op.schedule, op.args, "conv", 4, testing::LLVMBackend()),
            "");
}

}  // namespace
}  // namespace topi
}  // namespace tessera
