#include "compiler/topi/conv2d_nchwc_x86.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/op.h"
#include "compiler/support/error.h"
#include "compiler/te/tensor.h"
#include "compiler/topi/index_constant.h"
#include "compiler/topi/row_parts.h"
#include "compiler/topi/zero_pad.h"

namespace tessera {
namespace topi {
namespace {

using ir::DataType;
using ir::Expr;
using ir::Var;

void CheckShape(const Conv2dShape& s) {
  TESSERA_USER_CHECK(s.n > 0 && s.c > 0 && s.h > 0 && s.w > 0 && s.k > 0 && s.r > 0 && s.s > 0)
      << "conv2d: dimensions must be positive";
  TESSERA_USER_CHECK(s.stride > 0 && s.pad >= 0) << "conv2d: stride must be positive and padding "
                                                    "not negative, got stride "
                                                 << s.stride << " pad " << s.pad;
  TESSERA_USER_CHECK(s.h + 2 * s.pad >= s.r && s.w + 2 * s.pad >= s.s)
      << "conv2d: the " << s.r << "x" << s.s << " kernel does not fit the padded " << s.h << "x"
      << s.w << " input";
  TESSERA_USER_CHECK(s.groups > 0 && s.c % s.groups == 0 && s.k % s.groups == 0)
      << "conv2d: " << s.groups << " groups do not divide " << s.c << " input and " << s.k
      << " output channels";
}

double Conv2dFlops(const Conv2dShape& s) {
  return 2.0 * s.n * s.k * s.oh() * s.ow() * s.group_c() * s.r * s.s;
}

// Output rows whose window reaches into the zero padding: the first `top` and the last
// `bottom`. Computing them apart lets each run only its in-bounds kernel rows, as oneDNN does.
struct BorderRows {
  int64_t top = 0, bottom = 0;
};

BorderRows BorderRowsOf(const Conv2dShape& s) {
  BorderRows b;
  if (s.pad == 0) return b;
  const int64_t oh = s.oh();
  while (b.top < oh && b.top * s.stride < s.pad) ++b.top;
  while (b.bottom < oh - b.top && (oh - 1 - b.bottom) * s.stride - s.pad + s.r > s.h) ++b.bottom;
  return b;
}

// In-bounds kernel rows [first, end) of output row y.
std::pair<int64_t, int64_t> KernelRowsOf(const Conv2dShape& s, int64_t y) {
  const int64_t top = y * s.stride - s.pad;  // input row of kernel row 0
  return {std::max<int64_t>(0, -top), std::min<int64_t>(s.r, s.h - top)};
}

// Tessera computes borders apart only when every border row has kernel rows to run and some
// rows stay in the middle.
bool CanSplitBorders(const Conv2dShape& s) {
  BorderRows b = BorderRowsOf(s);
  if (b.top + b.bottom == 0 || b.top + b.bottom >= s.oh()) return false;
  for (int64_t y = 0; y < s.oh(); ++y) {
    if (y >= b.top && y < s.oh() - b.bottom) continue;
    auto [first, end] = KernelRowsOf(s, y);
    if (end <= first) return false;
  }
  return true;
}

// Whether the fallback runs the border rows apart: skipping the padding's kernel rows pays once
// they are a noticeable share of the work.
bool SplitsBordersByDefault(const Conv2dShape& s) { return CanSplitBorders(s) && s.oh() <= 16; }

// How a register tile's reduction runs inside the input-channel blocks and kernel rows.
struct ReductionOrder {
  // Kernel columns unrolled: outside the block's channels, or with lane_loads inside them.
  bool unroll_kw = false;
  // The block's channels unrolled innermost but for the tile, so that each input pixel's
  // adjacent channels are loaded as one vector and multiplied lane by lane (Arm's lane-indexed
  // fmla, codegen/llvm/lane_indexed_loads.h) instead of one scalar load per broadcast.
  bool lane_loads = false;
};

// Orders (and unrolls) the reduction axes of tile stage `a` as `order` says, the output axes
// `oh`, `ow` of the tile inside them.
void OrderReduction(te::Stage& a, ir::IterVar oh, ir::IterVar ow, ir::IterVar oc,
                    std::vector<ir::IterVar> outer, ReductionOrder order) {
  ir::IterVar r_icc = a.reduce_axis(0), r_ici = a.reduce_axis(1), r_kh = a.reduce_axis(2),
              r_kw = a.reduce_axis(3);
  std::vector<ir::IterVar> axes = {r_icc, r_kh};
  axes.insert(axes.end(), outer.begin(), outer.end());
  if (order.unroll_kw && !order.lane_loads) {
    axes.insert(axes.end(), {r_ici, r_kw});
  } else {
    axes.insert(axes.end(), {r_kw, r_ici});
  }
  axes.insert(axes.end(), {oh, ow, oc});
  a.reorder(axes);
  if (order.unroll_kw) a.unroll(r_kw);
  if (order.lane_loads) a.unroll(r_ici);
}

// Register tile of one blocked convolution stage: reg_h rows x reg_n columns x oc_bn channels,
// the reduction inside so its accumulators stay in registers. `out` writes the tile: `conv`
// itself, or an epilogue on it. `row_parts`: see ScheduleBlockedTile.
void ScheduleRegisterTile(te::Schedule& s, const te::Tensor& conv, const te::Tensor& out,
                          int64_t reg_h, int64_t reg_n, ReductionOrder order,
                          int64_t row_parts = 1) {
  te::Stage a = ScheduleBlockedTile(s, conv, out, reg_h, reg_n, row_parts);
  ir::IterVar a_oh = a.axis(2), a_ow = a.axis(3), a_oc = a.axis(4);
  OrderReduction(a, a_oh, a_ow, a_oc, {}, order);
  a.unroll(a_oh);
  a.unroll(a_ow);
  a.vectorize(a_oc);
}

// Accumulators of one output channel block for the whole image (a few KB: small images only),
// the input-channel blocks and kernel rows outermost. A register tile of reg_h rows × reg_n
// columns keeps the sums in registers over one slice of the reduction (one input block, one
// kernel row) and puts them back; every row of the image then reuses that slice of weights from L1,
// so each weight is read from memory once, and prefetched a slice ahead, at the pace of the whole
// computation instead of one row's.
void ScheduleImageTile(te::Schedule& s, const te::Tensor& conv, const te::Tensor& out,
                       const te::Tensor& kernel, int64_t reg_h, int64_t reg_n,
                       ReductionOrder order) {
  te::Tensor acc = LocalAccumulator(s, conv, out);
  te::Stage o = s[out];
  ir::IterVar block = o.fuse(o.axis(0), o.axis(1));
  o.parallel(block);
  o.vectorize(o.axis(4));
  te::Stage a = s[acc];
  a.compute_at(o, block);
  auto [oh_chunk, oh_block] = a.split(a.axis(2), I(reg_h));
  auto [ow_chunk, ow_block] = a.split(a.axis(3), I(reg_n));
  ir::IterVar a_oc = a.axis(4);
  ir::IterVar r_ici = a.reduce_axis(1), r_kh = a.reduce_axis(2);
  OrderReduction(a, oh_block, ow_block, a_oc, {oh_chunk, ow_chunk}, order);
  a.unroll(oh_block);
  a.unroll(ow_block);
  a.vectorize(a_oc);
  // The next slice's weights a line per step over all the rows: memory then streams at the
  // pace of the whole slice, not of its first row.
  a.prefetch(kernel, r_kh, r_ici);
}

// Weights of one output channel block (every input channel and tap) are read once per register
// tile, so they should stay in the core's L2 cache (1 MB on x86, 256 KB to 1 MB on Arm cores).
int64_t WeightBlockBytes(const VectorUnit& unit) { return unit.l2_bytes; }

// Whether the accumulators of ScheduleImageTile (one output channel block of the whole image,
// 32 channels) stay on the stack (lowering's 32 KB): 7x7 to 16x16 images.
bool ImageAccumulatorsFit(const Conv2dShape& s) { return s.oh() * s.ow() * 32 * 4 <= 32 << 10; }

// The fallback register tile: reg_h rows × reg_w columns × oc_bn channels of whole vectors.
struct RegisterTile {
  int64_t oc_bn = 1, reg_h = 1, reg_w = 1;
};

// Vector registers a block of `block` channels takes, and the share of their lanes it fills.
int64_t VectorsOf(int64_t block, const VectorUnit& unit) {
  return (block + unit.lanes - 1) / unit.lanes;
}
double LanesUsed(int64_t block, const VectorUnit& unit) {
  return static_cast<double>(block) / static_cast<double>(VectorsOf(block, unit) * unit.lanes);
}

// The output block of channels (of a group) that are no multiple of a vector: the divisor up to
// four vectors that fills its vectors best (the larger on a tie), e.g. 58 channels in blocks of
// 58 (four AVX-512 vectors, 91% of the lanes busy) rather than 2 (12%), and the same 58 for 116
// and 232 (ShuffleNetV2's branches).
int64_t PartialVectorBlock(const Conv2dShape& s, const VectorUnit& unit, int64_t max_vectors = 4) {
  int64_t best = 1;
  double best_fill = 0;
  for (int64_t b = 1; b <= std::min<int64_t>(s.group_k(), max_vectors * unit.lanes); ++b) {
    if (s.group_k() % b != 0) continue;
    if (b > unit.lanes && s.group_c() * s.r * s.s * b * 4 > WeightBlockBytes(unit)) continue;
    const double fill = LanesUsed(b, unit);
    if (fill >= best_fill) {
      best = b;
      best_fill = fill;
    }
  }
  return best;
}

// Each step of the reduction loads oc_bn / lanes weight vectors into registers and broadcasts
// reg_h × reg_w inputs, one at a time, into as many fused multiply-adds as there are
// accumulators. Two multiply-add units of four cycles' latency need 8 accumulators in flight;
// measured on AVX-512 (Zen 5), 14 to 16 of them run the ResNet shapes at 90-95% of the peak
// while 28 run slower (more address arithmetic, more input columns live in L1) and more than
// the registers left beside the weights and a broadcast spill. So the tile takes 12 to
// min(16, registers - vectors - 1) accumulators where it can, preferring two vectors of output
// channels (each broadcast then feeds two multiply-adds), then single rows (contiguous inputs),
// then wider rows.
// `rows` is what reg_h must divide (the rows of the middle stage when border rows are apart).
RegisterTile FallbackTile(const Conv2dShape& s, const VectorUnit& unit, int64_t rows) {
  std::vector<int64_t> blocks;
  for (int64_t vectors : {2, 1, 4}) {
    const int64_t oc_bn = vectors * unit.lanes;
    if (oc_bn <= 64 && s.group_k() % oc_bn == 0 &&
        (vectors == 1 || s.group_c() * s.r * s.s * oc_bn * 4 <= WeightBlockBytes(unit))) {
      blocks.push_back(oc_bn);
    }
  }
  // Channels that are no multiple of a vector: the block filling its vectors best, or one
  // partial vector when that leaves more accumulators (SqueezeNet's 1000 channels at 13×13:
  // blocks of 40 left three accumulators, 3.8 ms against 1.1 for one vector of 10 lanes), or
  // the best-filled two vectors, which keep a whole row of accumulators with more lanes busy
  // (the same layer in blocks of 25: 1.37 ms tuned against 3.2 for 10 lanes on an AVX-512 Xeon).
  if (blocks.empty()) {
    blocks.push_back(PartialVectorBlock(s, unit));
    const int64_t one_vector = LargestDivisorAtMost(s.group_k(), unit.lanes);
    if (one_vector != blocks[0]) blocks.push_back(one_vector);
    const int64_t two_vectors = PartialVectorBlock(s, unit, 2);
    if (std::find(blocks.begin(), blocks.end(), two_vectors) == blocks.end()) {
      blocks.push_back(two_vectors);
    }
  }
  RegisterTile best;
  double best_score = -1e9;
  for (size_t preference = 0; preference < blocks.size(); ++preference) {
    const int64_t oc_bn = blocks[preference];
    const int64_t vectors = VectorsOf(oc_bn, unit);
    const double lanes_used = LanesUsed(oc_bn, unit);  // accumulator lanes holding outputs
    const int64_t budget = std::max<int64_t>(1, unit.registers - vectors - 1);
    const int64_t target = std::min<int64_t>(16, budget);
    for (int64_t h = 1; h <= std::min<int64_t>(4, s.oh()); ++h) {
      if (s.oh() % h != 0 || rows % h != 0) continue;
      for (int64_t w = 1; w <= std::min<int64_t>(32, s.ow()); ++w) {
        const int64_t accumulators = vectors * h * w;
        if (s.ow() % w != 0 || accumulators > budget) continue;
        // Enough accumulators first (past the target they count against), then the
        // preferences.
        const double fill =
            accumulators <= target ? accumulators : target - 0.5 * (accumulators - target);
        const double score =
            std::min(fill, 12.0) * lanes_used * 1000 - preference * 100 - h * 10 + w * 0.1;
        if (score > best_score) {
          best_score = score;
          best = {oc_bn, h, w};
        }
      }
    }
  }
  return best;
}

}  // namespace

space::ConfigSpace Conv2dNCHWcX86Space(const Conv2dShape& shape, const VectorUnit& unit) {
  CheckShape(shape);
  space::ConfigSpace sp;
  sp.DefineSplit("tile_ic", shape.group_c(), {space::SplitPolicy::kFactors, 2, 64});
  sp.DefineSplit("tile_oc", shape.group_k(), {space::SplitPolicy::kFactors, 2, 64});
  sp.DefineSplit("tile_oh", shape.oh(), {space::SplitPolicy::kFactors, 2, 4});
  sp.DefineSplit("tile_ow", shape.ow(), {space::SplitPolicy::kFactors, 2, 32});
  sp.DefineKnob("unroll_kw", {0, 1});
  const bool borders = CanSplitBorders(shape);
  sp.DefineKnob("border_rows", borders ? std::vector<int64_t>{0, 1} : std::vector<int64_t>{0});
  // Added after records were written: a record without it ran the register-tile nest.
  sp.DefineKnob("image_acc",
                ImageAccumulatorsFit(shape) ? std::vector<int64_t>{0, 1} : std::vector<int64_t>{0},
                /*when_absent=*/0);
  const bool split_borders = SplitsBordersByDefault(shape);
  const BorderRows b = BorderRowsOf(shape);
  const RegisterTile tile =
      FallbackTile(shape, unit, split_borders ? shape.oh() - b.top - b.bottom : shape.oh());
  // Input blocks of one vector; a model build reads its producer's block instead when it can.
  // Channels that are no multiple of a vector take their longest block up to 64 (the inner
  // reduction loop; 58 channels in blocks of 2 ran a two-step loop per broadcast).
  const int64_t group_c = shape.group_c();
  sp.SetFallback("tile_ic",
                 {-1, group_c % unit.lanes == 0 ? unit.lanes : LargestDivisorAtMost(group_c, 64)});
  sp.SetFallback("tile_oc", {-1, tile.oc_bn});
  sp.SetFallback("tile_oh", {-1, tile.reg_h});
  sp.SetFallback("tile_ow", {-1, tile.reg_w});
  // Unrolled kernel columns give the scheduler independent loads, as long as the unrolled body
  // (kernel width × tile columns) stays small enough for the instruction cache.
  if (shape.s > 1 && shape.s * tile.reg_w <= 64) sp.SetFallback("unroll_kw", {1});
  if (ImageAccumulatorsFit(shape) &&
      shape.group_c() * shape.r * shape.s * tile.oc_bn * 4 >= WeightBlockBytes(unit) / 4) {
    sp.SetFallback("image_acc", {1});
  } else if (split_borders) {
    sp.SetFallback("border_rows", {1});
  }
  DefineRowParts(sp, unit, ActivationBytes(shape, shape.k),
                 shape.k * shape.group_c() * shape.r * shape.s * 4);
  return sp;
}

space::ConfigSpace Conv2dNCHWcArmSpace(const Conv2dShape& shape, const VectorUnit& unit) {
  space::ConfigSpace sp = Conv2dNCHWcX86Space(shape, unit);
  sp.DefineKnob("lane_loads", {0, 1});
  // One vector load per pixel and channel block, its lanes multiplied in turn; the kernel
  // columns then stay a loop (their unrolled bodies times the block's lanes spill registers).
  sp.SetFallback("lane_loads", {1});
  sp.SetFallback("unroll_kw", {0});
  // The register tile's accumulators stay in registers rather than the whole image's on the
  // stack, whatever the weights weigh against the core's L2: with lane-indexed multiply-adds the
  // image's accumulators cost a load and a store each (ResNet-18's 512-channel 7x7 layer for
  // cortex-a76 executed 1.71x XNNPACK's instructions with them, 0.84x without).
  if (sp.Fallback().Value("image_acc") != 0) {
    sp.SetFallback("image_acc", {0});
    if (SplitsBordersByDefault(shape)) sp.SetFallback("border_rows", {1});
  }
  return sp;
}

int64_t LargestDivisorAtMost(int64_t n, int64_t limit) {
  for (int64_t d = std::min(n, limit); d > 1; --d) {
    if (n % d == 0) return d;
  }
  return 1;
}

te::Tensor PaddedBlockedData(const te::Tensor& data, const Conv2dShape& sh, int64_t ic_bn,
                             bool input_halo, ir::Expr fill) {
  const int64_t pad = sh.pad;
  if (pad == 0) return data;
  const std::vector<Expr> shape = {I(sh.n), I(sh.c / ic_bn), I(sh.h + 2 * pad), I(sh.w + 2 * pad),
                                   I(ic_bn)};
  // Padding in the data's halo: the padded input is the data at shifted indices, no copy.
  if (input_halo) {
    return te::compute(
        shape,
        [&](const std::vector<Var>& i) {
          return data(i[0], i[1], i[2] - I(pad), i[3] - I(pad), i[4]);
        },
        "data_halo");
  }
  return ZeroPadRowsCols(data, shape, sh.h, sh.w, pad, "data_pad", fill);
}

Conv2dBlocks Conv2dNCHWcBlocks(const space::ConfigEntity& config) {
  return {config.Split("tile_ic")[1], config.Split("tile_oc")[1]};
}

space::ConfigEntity Conv2dNCHWcWithInputBlock(const space::ConfigSpace& space,
                                              const space::ConfigEntity& config, int64_t ic_bn) {
  return space.WithSplitInner(config, "tile_ic", ic_bn);
}

namespace {

// The operands of one blocked convolution, and the stages that compute its output rows.
struct BlockedConv {
  const Conv2dShape& sh;
  int64_t ic_bn, oc_bn;
  te::Tensor data, kernel, padded;
  bool bytes = false;  // int32 words of four bytes, multiplied by dot4_u8s8

  // Output rows [row0, row0 + rows) over kernel rows [kh0, kh1).
  te::Tensor Rows(int64_t row0, int64_t rows, int64_t kh0, int64_t kh1,
                  const std::string& name) const {
    const int64_t ow = sh.ow(), stride = sh.stride;
    const int64_t group_blocks = sh.group_c() / ic_bn;  // input blocks of one group
    ir::IterVar icc = te::reduce_axis(I(group_blocks), "icc");
    ir::IterVar ici = te::reduce_axis(I(ic_bn), "ici");
    ir::IterVar kh = te::reduce_axis(I(kh1 - kh0), "kh");
    ir::IterVar kw = te::reduce_axis(I(sh.s), "kw");
    return te::compute(
        {I(sh.n), I(sh.k / oc_bn), I(rows), I(ow), I(oc_bn)},
        [&](const std::vector<Var>& i) {
          Expr y = (i[2] + I(row0)) * I(stride) + kh + I(kh0);
          // The output block's group starts at this input block (a block holds one group's
          // channels only, so the whole vector of outputs shares each broadcast input).
          Expr block = icc;
          if (sh.groups > 1) {
            block = ir::floordiv(i[1], I(sh.group_k() / oc_bn)) * I(group_blocks) + icc;
          }
          Expr x = padded(i[0], block, y, i[3] * I(stride) + kw, ici);
          Expr w = kernel(i[1], icc, kh + I(kh0), kw, ici, i[4]);
          return te::sum(bytes ? ir::dot4_u8s8(x, w) : x * w, {icc, ici, kh, kw});
        },
        name);
  }

  std::vector<te::Tensor> Args(const OutputEpilogue* epilogue, const te::Tensor& out) const {
    std::vector<te::Tensor> a = {data, kernel};
    if (epilogue) a.insert(a.end(), epilogue->inputs.begin(), epilogue->inputs.end());
    a.push_back(out);
    return a;
  }
};

// All output rows in one stage, in register tiles or (image) in accumulators of the whole image;
// the register tiles' rows in `row_parts` parts (RowPartsOf).
ScheduledOp Conv2dOneStage(const BlockedConv& bc, const OutputEpilogue* epilogue, bool pad_stage,
                           bool image, int64_t reg_h, int64_t reg_n, ReductionOrder order,
                           int64_t row_parts) {
  const Conv2dShape& sh = bc.sh;
  te::Tensor conv = bc.Rows(0, sh.oh(), 0, sh.r, "conv_NCHWc");
  te::Tensor out = epilogue ? epilogue->apply(conv) : conv;
  te::Schedule s = te::create_schedule({out});
  InlineEpilogueStages(s, {"data_pad"});
  if (pad_stage) ScheduleParallelPadding(s, bc.padded, !image && row_parts > 1);
  if (image) {
    ScheduleImageTile(s, conv, out, bc.kernel, reg_h, reg_n, order);
  } else {
    ScheduleRegisterTile(s, conv, out, reg_h, reg_n, order, row_parts);
  }
  return {s, bc.Args(epilogue, out), Conv2dFlops(sh)};
}

// Each border row in a stage of its own running only its in-bounds kernel rows, the middle
// rows in one stage, then one pass gathers the rows into the output.
ScheduledOp Conv2dBorderRowsApart(const BlockedConv& bc, const OutputEpilogue* epilogue,
                                  bool pad_stage, int64_t reg_h, int64_t reg_n,
                                  ReductionOrder order) {
  const Conv2dShape& sh = bc.sh;
  const int64_t oh = sh.oh(), ow = sh.ow(), oc_bn = bc.oc_bn;
  const BorderRows b = BorderRowsOf(sh);
  const int64_t middle_rows = oh - b.top - b.bottom;
  std::vector<std::pair<int64_t, te::Tensor>> border;  // (output row, its stage)
  for (int64_t y = 0; y < oh; ++y) {
    if (y >= b.top && y < oh - b.bottom) continue;
    auto [kh0, kh1] = KernelRowsOf(sh, y);
    border.emplace_back(y, bc.Rows(y, 1, kh0, kh1, "conv_row" + std::to_string(y)));
  }
  te::Tensor middle = bc.Rows(b.top, middle_rows, 0, sh.r, "conv_middle");
  te::Tensor gathered = te::compute(
      {I(sh.n), I(sh.k / oc_bn), I(oh), I(ow), I(oc_bn)},
      [&](const std::vector<Var>& i) {
        // Indices are clamped so that the rows not chosen are still read in bounds.
        Expr row = ir::min(ir::max(i[2] - I(b.top), I(0)), I(middle_rows - 1));
        Expr value = middle(i[0], i[1], row, i[3], i[4]);
        for (const auto& [y, stage] : border) {
          value = ir::select(i[2] == I(y), stage(i[0], i[1], I(0), i[3], i[4]), value);
        }
        return value;
      },
      "conv_NCHWc");
  te::Tensor out = epilogue ? epilogue->apply(gathered) : gathered;
  te::Schedule s = te::create_schedule({out});
  InlineEpilogueStages(s, {"data_pad"});
  if (pad_stage) ScheduleParallelPadding(s, bc.padded, false);
  for (const auto& entry : border) {
    ScheduleRegisterTile(s, entry.second, entry.second, 1, reg_n, order);
  }
  ScheduleRegisterTile(s, middle, middle, LargestDivisorAtMost(middle_rows, reg_h), reg_n, order);
  te::Stage o = s[out];
  o.parallel(o.fuse(o.axis(0), o.axis(1)));
  o.vectorize(o.axis(4));
  return {s, bc.Args(epilogue, out), Conv2dFlops(sh)};
}

}  // namespace

namespace {

// The blocked convolution of `sh` for `config`, `name` in messages: float32 channels, or with
// `bytes` int32 words of four byte channels (`sh` counted in words) multiplied by dot4_u8s8; the
// padding holds `fill` (undefined: zeros).
ScheduledOp BlockedConvolution(const char* name, const Conv2dShape& sh,
                               const space::ConfigEntity& config, const OutputEpilogue* epilogue,
                               bool input_halo, bool bytes, ir::Expr fill) {
  const auto [ic_bn, oc_bn] = Conv2dNCHWcBlocks(config);
  const int64_t reg_h = config.Split("tile_oh")[1];
  const int64_t reg_n = config.Split("tile_ow")[1];
  ReductionOrder order;
  order.unroll_kw = config.Value("unroll_kw") != 0;
  order.lane_loads = config.ValueOr("lane_loads", 0) != 0;
  const int64_t oh = sh.oh(), ow = sh.ow(), pad = sh.pad;
  TESSERA_USER_CHECK(sh.group_c() % ic_bn == 0 && sh.group_k() % oc_bn == 0 && oh % reg_h == 0 &&
                     ow % reg_n == 0)
      << name << ": config " << config.ToString() << " does not tile the shape";
  const bool split_borders = config.Value("border_rows") != 0;
  TESSERA_USER_CHECK(!split_borders || CanSplitBorders(sh))
      << name << ": config " << config.ToString() << " splits border rows the shape lacks";

  const DataType element = bytes ? DataType::Int(32) : DataType::Float(32);
  te::Tensor data =
      te::placeholder({I(sh.n), I(sh.c / ic_bn), I(sh.h), I(sh.w), I(ic_bn)}, element, "data");
  te::Tensor kernel = te::placeholder(
      {I(sh.k / oc_bn), I(sh.group_c() / ic_bn), I(sh.r), I(sh.s), I(ic_bn), I(oc_bn)}, element,
      "kernel");
  te::Tensor padded = PaddedBlockedData(data, sh, ic_bn, input_halo, fill);
  const bool pad_stage = pad > 0 && !input_halo;
  const BlockedConv bc{sh, ic_bn, oc_bn, data, kernel, padded, bytes};
  // The image nest computes the padding rows like any other (border_rows does not apply); the
  // border rows apart skip the padding's kernel rows, which only zero padding allows.
  const bool image = config.Value("image_acc") != 0;
  if (image || !split_borders || fill.defined()) {
    return Conv2dOneStage(bc, epilogue, pad_stage, image, reg_h, reg_n, order,
                          RowPartsOf(config, oh / reg_h));
  }
  return Conv2dBorderRowsApart(bc, epilogue, pad_stage, reg_h, reg_n, order);
}

}  // namespace

ScheduledOp Conv2dNCHWcX86(const Conv2dShape& sh, const space::ConfigEntity& config,
                           const OutputEpilogue* epilogue, bool input_halo) {
  CheckShape(sh);
  return BlockedConvolution("conv2d_NCHWc.x86", sh, config, epilogue, input_halo, false,
                            ir::Expr());
}

ScheduledOp Conv2dNCHWcInt8X86(const Conv2dShape& sh, const space::ConfigEntity& config,
                               int32_t pad_word, const OutputEpilogue* epilogue) {
  CheckShape(sh);
  TESSERA_USER_CHECK(sh.group_c() % 4 == 0)
      << "conv2d_NCHWc_int8.x86: the input channels of a group (" << sh.group_c()
      << ") must be a multiple of 4 (pad them with zero weights)";
  const ir::Expr fill = pad_word != 0 ? ir::IntImm(DataType::Int(32), pad_word) : ir::Expr();
  ScheduledOp op = BlockedConvolution("conv2d_NCHWc_int8.x86", Conv2dWords(sh), config, epilogue,
                                      false, true, fill);
  op.flops = Conv2dFlops(sh);
  return op;
}

Conv2dShape Conv2dWords(const Conv2dShape& shape) {
  Conv2dShape words = shape;
  words.c = shape.c / 4;
  return words;
}

ScheduledOp Conv2dInt8Default(const Conv2dShape& sh, int64_t zero_point) {
  CheckShape(sh);
  const int64_t pad = sh.pad, stride = sh.stride;
  te::Tensor data =
      te::placeholder({I(sh.n), I(sh.c), I(sh.h), I(sh.w)}, DataType::UInt(8), "data");
  te::Tensor kernel =
      te::placeholder({I(sh.k), I(sh.group_c()), I(sh.r), I(sh.s)}, DataType::Int(8), "kernel");
  te::Tensor padded =
      ZeroPadRowsCols(data, {I(sh.n), I(sh.c), I(sh.h + 2 * pad), I(sh.w + 2 * pad)}, sh.h, sh.w,
                      pad, "padded", ir::IntImm(DataType::UInt(8), zero_point));
  ir::IterVar rc = te::reduce_axis(I(sh.group_c()), "rc");
  ir::IterVar ry = te::reduce_axis(I(sh.r), "ry");
  ir::IterVar rx = te::reduce_axis(I(sh.s), "rx");
  te::Tensor out = te::compute(
      {I(sh.n), I(sh.k), I(sh.oh()), I(sh.ow())},
      [&](Var n, Var k, Var y, Var x) {
        Expr c = sh.groups > 1 ? ir::floordiv(k, I(sh.group_k())) * I(sh.group_c()) + rc : rc;
        return te::sum(
            ir::cast(DataType::Int(32), padded(n, c, y * I(stride) + ry, x * I(stride) + rx)) *
                ir::cast(DataType::Int(32), kernel(k, rc, ry, rx)),
            {rc, ry, rx});
      },
      "output");
  return {te::create_schedule({out}), {data, kernel, out}, Conv2dFlops(sh)};
}

Conv2dOperands Conv2dNCHWCompute(const Conv2dShape& sh) {
  CheckShape(sh);
  const int64_t pad = sh.pad, stride = sh.stride;
  Conv2dOperands op;
  op.data = te::placeholder({I(sh.n), I(sh.c), I(sh.h), I(sh.w)}, DataType::Float(32), "data");
  op.kernel =
      te::placeholder({I(sh.k), I(sh.group_c()), I(sh.r), I(sh.s)}, DataType::Float(32), "kernel");
  op.padded = ZeroPadRowsCols(op.data, {I(sh.n), I(sh.c), I(sh.h + 2 * pad), I(sh.w + 2 * pad)},
                              sh.h, sh.w, pad, "padded");
  ir::IterVar rc = te::reduce_axis(I(sh.group_c()), "rc");
  ir::IterVar ry = te::reduce_axis(I(sh.r), "ry");
  ir::IterVar rx = te::reduce_axis(I(sh.s), "rx");
  op.out = te::compute(
      {I(sh.n), I(sh.k), I(sh.oh()), I(sh.ow())},
      [&](Var n, Var k, Var y, Var x) {
        Expr c = sh.groups > 1 ? ir::floordiv(k, I(sh.group_k())) * I(sh.group_c()) + rc : rc;
        return te::sum(
            op.padded(n, c, y * I(stride) + ry, x * I(stride) + rx) * op.kernel(k, rc, ry, rx),
            {rc, ry, rx});
      },
      "output");
  return op;
}

double Conv2dNCHWFlops(const Conv2dShape& sh) { return Conv2dFlops(sh); }

ScheduledOp Conv2dDefault(const Conv2dShape& sh) {
  Conv2dOperands op = Conv2dNCHWCompute(sh);
  return {te::create_schedule({op.out}), {op.data, op.kernel, op.out}, Conv2dFlops(sh)};
}

}  // namespace topi
}  // namespace tessera
