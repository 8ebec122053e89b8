#include "compiler/topi/depthwise_conv2d_nchwc_x86.h"

#include <vector>

#include "compiler/ir/op.h"
#include "compiler/support/error.h"
#include "compiler/te/tensor.h"
#include "compiler/topi/depthwise_conv2d_x86.h"
#include "compiler/topi/index_constant.h"
#include "compiler/topi/row_parts.h"
#include "compiler/topi/zero_pad.h"

namespace tessera {
namespace topi {
namespace {

using ir::DataType;
using ir::Var;

}  // namespace

space::ConfigSpace DepthwiseConv2dNCHWcX86Space(const Conv2dShape& shape, const VectorUnit& unit) {
  CheckDepthwiseShape(shape, "depthwise_conv2d_NCHWc");
  space::ConfigSpace sp;
  sp.DefineSplit("tile_c", shape.c, {space::SplitPolicy::kFactors, 2, 64});
  sp.DefineSplit("tile_oh", shape.oh(), {space::SplitPolicy::kFactors, 2, 4});
  sp.DefineSplit("tile_ow", shape.ow(), {space::SplitPolicy::kFactors, 2, 16});
  sp.DefineKnob("pad_inline", {0, 1});
  // One vector of channels × 8 columns: 8 accumulators hide the multiply-add latency and fit
  // every register file. A model build gives an untuned depthwise convolution the block its
  // producer writes instead, so no layout changes between it and the 1x1 convolutions around it.
  sp.FallbackSplit("tile_c", {-1, unit.lanes});
  sp.FallbackSplit("tile_oh", {-1, 1});
  sp.FallbackSplit("tile_ow", {-1, 8});
  // Zeros read through guards (which the loop partitioning keeps to the borders) rather than a
  // padded copy of the input first: the copy is a pass over the whole input for a few
  // multiply-adds per element (MobileNetV3's 3x3 stride-2 layer on 64x112x112: 0.15 ms against
  // 0.41-0.48 with the copy, over 40 tuned configs; 3x3 at 56x56, 14x14 and 112x112 and 5x5 at
  // 7x7 likewise).
  sp.SetFallback("pad_inline", {1});
  DefineRowParts(sp, unit, ActivationBytes(shape, shape.c), shape.c * shape.r * shape.s * 4);
  return sp;
}

space::ConfigSpace DepthwiseConv2dNCHWcArmSpace(const Conv2dShape& shape, const VectorUnit& unit) {
  space::ConfigSpace sp = DepthwiseConv2dNCHWcX86Space(shape, unit);
  // Rows of up to 16 columns where their accumulators and the kernel's tap vectors fit the
  // registers (3x3: 16 + 9 of NEON's 32): a 4-lane vector does a quarter of an AVX-512 one's
  // work per instruction, so the loop and address overhead per column weighs more. Counted
  // under qemu (cortex-a76, 144 channels at 56x56, one run): 2.26 M instructions for rows of 14
  // against 2.82 M for 8, and 4.18 M for two rows of 8.
  const int64_t taps = shape.r * shape.s;
  if (16 + taps + 2 <= unit.registers) sp.FallbackSplit("tile_ow", {-1, 16});
  return sp;
}

int64_t DepthwiseConv2dNCHWcBlock(const space::ConfigEntity& config) {
  return config.Split("tile_c")[1];
}

space::ConfigEntity DepthwiseConv2dNCHWcWithBlock(const space::ConfigSpace& space,
                                                  const space::ConfigEntity& config, int64_t bn) {
  return space.WithSplitInner(config, "tile_c", bn);
}

ScheduledOp DepthwiseConv2dNCHWcX86(const Conv2dShape& sh, const space::ConfigEntity& config,
                                    const OutputEpilogue* epilogue) {
  CheckDepthwiseShape(sh, "depthwise_conv2d_NCHWc");
  const int64_t bn = DepthwiseConv2dNCHWcBlock(config);
  const int64_t reg_h = config.Split("tile_oh")[1], reg_w = config.Split("tile_ow")[1];
  const int64_t oh = sh.oh(), ow = sh.ow(), pad = sh.pad, stride = sh.stride;
  TESSERA_USER_CHECK(sh.c % bn == 0 && oh % reg_h == 0 && ow % reg_w == 0)
      << "depthwise_conv2d_NCHWc.x86: config " << config.ToString() << " does not tile the shape";
  te::Tensor data = te::placeholder({I(sh.n), I(sh.c / bn), I(sh.h), I(sh.w), I(bn)},
                                    DataType::Float(32), "data");
  te::Tensor kernel =
      te::placeholder({I(sh.c / bn), I(sh.r), I(sh.s), I(bn)}, DataType::Float(32), "kernel");
  te::Tensor padded =
      ZeroPadRowsCols(data, {I(sh.n), I(sh.c / bn), I(sh.h + 2 * pad), I(sh.w + 2 * pad), I(bn)},
                      sh.h, sh.w, pad, "data_pad");
  ir::IterVar kh = te::reduce_axis(I(sh.r), "kh"), kw = te::reduce_axis(I(sh.s), "kw");
  te::Tensor conv = te::compute(
      {I(sh.n), I(sh.c / bn), I(oh), I(ow), I(bn)},
      [&](const std::vector<Var>& i) {
        return te::sum(padded(i[0], i[1], i[2] * I(stride) + kh, i[3] * I(stride) + kw, i[4]) *
                           kernel(i[1], kh, kw, i[4]),
                       {kh, kw});
      },
      "depthwise_NCHWc", "depthwise_conv2d");

  te::Tensor out = epilogue ? epilogue->apply(conv) : conv;
  te::Schedule s = te::create_schedule({out});
  InlineEpilogueStages(s, {"data_pad"});
  const int64_t row_parts = RowPartsOf(config, oh / reg_h);
  if (pad == 0 || config.Value("pad_inline")) {
    s[padded].compute_inline();
  } else {
    te::Stage p = ScheduleParallelPadding(s, padded, row_parts > 1);
    p.vectorize(p.axis(4));
  }
  te::Stage a = ScheduleBlockedTile(s, conv, out, reg_h, reg_w, row_parts);
  ir::IterVar a_oh = a.axis(2), a_ow = a.axis(3), a_c = a.axis(4);
  a.reorder({a.reduce_axis(0), a.reduce_axis(1), a_oh, a_ow, a_c});
  a.unroll(a_oh);
  a.unroll(a_ow);
  a.vectorize(a_c);
  std::vector<te::Tensor> args = {data, kernel};
  if (epilogue) args.insert(args.end(), epilogue->inputs.begin(), epilogue->inputs.end());
  args.push_back(out);
  return {s, args, 2.0 * sh.n * sh.c * oh * ow * sh.r * sh.s};
}

}  // namespace topi
}  // namespace tessera
