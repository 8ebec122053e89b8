/// \file
/// 2-D convolution for x86 in the blocked NCHWc layout, on data and weights already blocked.
///
/// The tunable template `conv2d_NCHWc.x86` takes data as `NCHW[ic_bn]c`
/// (`data[n, c / ic_bn, h, w, c % ic_bn]`) and weights pre-packed once as
/// `OIHW[ic_bn]i[oc_bn]o` (`kernel[k / oc_bn, c / ic_bn, r, s, c % ic_bn, k % oc_bn]`, see
/// `compiler/topi/nchwc_layout.h`), pads the data inside, and produces `NCHW[oc_bn]c`
/// (`out[n, k / oc_bn, oh, ow, k % oc_bn]`) with a register tile of reg_h output rows × reg_n
/// output columns × oc_bn channels kept in a local cache, vectorized along oc_bn. The block sizes
/// come from the config, so a caller packs its tensors for the config it builds.
#ifndef TESSERA_COMPILER_TOPI_CONV2D_NCHWC_X86_H_
#define TESSERA_COMPILER_TOPI_CONV2D_NCHWC_X86_H_

#include <cstdint>

#include "compiler/space/config_space.h"
#include "compiler/topi/output_epilogue.h"
#include "compiler/topi/scheduled_op.h"
#include "compiler/topi/vector_unit.h"

namespace tessera {
namespace topi {

/// A float32 convolution: input n×c×h×w, kernel k×(c / groups)×r×s, equal stride and padding on
/// both axes. With `groups` > 1 the channels split into that many groups, output channel `o`
/// reading only the input channels of group `o / (k / groups)` (ResNeXt, RegNet).
struct Conv2dShape {
  int64_t n = 1, c = 0, h = 0, w = 0, k = 0, r = 0, s = 0;
  int64_t stride = 1;
  int64_t pad = 0;
  int64_t groups = 1;  ///< channel groups; divides c and k
  /// Output height.
  int64_t oh() const { return (h + 2 * pad - r) / stride + 1; }
  /// Output width.
  int64_t ow() const { return (w + 2 * pad - s) / stride + 1; }
  /// Input channels of one group (what each output channel reduces over).
  int64_t group_c() const { return c / groups; }
  /// Output channels of one group.
  int64_t group_k() const { return k / groups; }
};

/// The channel blocks a config of `conv2d_NCHWc.x86` lays its tensors out with.
struct Conv2dBlocks {
  int64_t ic_bn = 1;  ///< input channels per block (data and weights)
  int64_t oc_bn = 1;  ///< output channels per block (weights and output)
};

/// The configuration space of `conv2d_NCHWc.x86` (and, for `shape.groups` > 1, of
/// `group_conv2d_NCHWc.x86`): tile_ic and tile_oc (2-way splits of one group's input and output
/// channels, inner ≤ 64: a block never straddles two groups), tile_oh (output rows of the register
/// tile, ≤ 4), tile_ow (output columns of the register tile, ≤ 32), unroll_kw (0/1) and border_rows
/// (0/1: output rows whose window reaches into the padding get stages of their own that skip the
/// padding's kernel rows; only 0 when the shape has none). The fallback's register tile fits
/// `unit`'s registers: output blocks of one to four vectors, as many accumulators as the registers
/// hold, the most multiply-adds per load. Throws `UserError` for an impossible shape.
space::ConfigSpace Conv2dNCHWcX86Space(const Conv2dShape& shape, const VectorUnit& unit = {});

/// The configuration space of `conv2d_NCHWc.arm` (and `group_conv2d_NCHWc.arm`), the same
/// computation for vector units whose multiply-adds take a lane of a register but no operand
/// broadcast from memory (Arm NEON): the x86 space and lane_loads (0/1: the input block's
/// channels unrolled inside the kernel columns, so each pixel's channels load as one vector and
/// feed lane-indexed multiply-adds), 1 in the fallback, which also keeps unroll_kw 0.
space::ConfigSpace Conv2dNCHWcArmSpace(const Conv2dShape& shape, const VectorUnit& unit);

/// The channel blocks of `config`.
Conv2dBlocks Conv2dNCHWcBlocks(const space::ConfigEntity& config);

/// `config` (a point of `space`) reading data in blocks of `ic_bn` channels instead: a model
/// build gives an untuned convolution the block its producer writes, which saves a layout pass
/// and costs the register tile nothing. `config` itself when `ic_bn` is no choice of tile_ic.
space::ConfigEntity Conv2dNCHWcWithInputBlock(const space::ConfigSpace& space,
                                              const space::ConfigEntity& config, int64_t ic_bn);

/// The blocked convolution for `config` (a point of `Conv2dNCHWcX86Space(shape)`); args: data
/// `NCHW[ic_bn]c`, kernel `OIHW[ic_bn]i[oc_bn]o` (I: one group's input channels, so a grouped
/// convolution's output block reads the input blocks of its group and broadcasts them as the
/// ungrouped one does), the epilogue's inputs, output `NCHW[oc_bn]c`
/// (`epilogue` applied, when given). With `input_halo`, the data's storage holds its zero padding
/// around it (a halo of at least `shape.pad` rows and columns, which the caller passes to
/// `lower::LowerOptions::arg_halos`): the convolution reads it in place instead of copying the
/// data into a padded buffer first.
ScheduledOp Conv2dNCHWcX86(const Conv2dShape& shape, const space::ConfigEntity& config,
                           const OutputEpilogue* epilogue = nullptr, bool input_halo = false);

/// The largest divisor of `n` that is at most `limit` (1 when none above 1): a tile or block
/// size that divides its extent.
int64_t LargestDivisorAtMost(int64_t n, int64_t limit);

/// `data` (`NCHW[ic_bn]c`, `shape`'s input) as a convolution reads it, `shape.pad` zeros around
/// each image: `data` itself without padding; with `input_halo`, a view of the zeros its storage
/// holds around it ("data_halo", to inline); else a stage "data_pad" that copies it into a padded
/// buffer (the caller schedules it). Shared by the blocked x86 templates.
te::Tensor PaddedBlockedData(const te::Tensor& data, const Conv2dShape& shape, int64_t ic_bn,
                             bool input_halo, ir::Expr fill = ir::Expr());

/// `shape` counted in int32 words of four input channels (c / 4): the shape whose float
/// template `conv2d_NCHWc_int8.x86` follows, word for channel. The config space of the int8
/// template is `Conv2dNCHWcX86Space(Conv2dWords(shape))` (tile_ic counts words).
Conv2dShape Conv2dWords(const Conv2dShape& shape);

/// The int8 convolution for `config` (a point of `Conv2dNCHWcX86Space(Conv2dWords(shape))`):
/// uint8 data times int8 weights, summed exactly in int32, four channels per instruction
/// (`ir::dot4_u8s8`: x86 VNNI's vpdpbusd where the target has it). Args: data `NCHW[ic]c` as
/// int32 words of four consecutive channels (`data[n, c / (4 ic), h, w, (c / 4) % ic]`, channel c
/// in byte c % 4), weights `OIHW[ic]i[oc_bn]o` of words (`kernel[k / oc_bn, c / (4 ic), r, s,
/// (c / 4) % ic, k % oc_bn]`, byte c % 4), the epilogue's inputs, output int32 `NCHW[oc_bn]c`.
/// Zero points are the caller's: the padding holds `pad_word` (the input's zero point in each
/// of its four bytes), so Σ (x − zero point) × w = result − zero point × Σ w; border_rows then
/// has no effect (the padding's rows count). Throws `UserError` when a group's input channels are
/// no multiple of 4.
ScheduledOp Conv2dNCHWcInt8X86(const Conv2dShape& shape, const space::ConfigEntity& config,
                               int32_t pad_word = 0, const OutputEpilogue* epilogue = nullptr);

/// The plain NCHW int8 convolution, the untuned baseline of `conv2d_NCHWc_int8.x86`: uint8 data
/// [n, c, h, w] padded with `zero_point`, int8 weights [k, c, r, s], int32 sums [n, k, oh, ow].
ScheduledOp Conv2dInt8Default(const Conv2dShape& shape, int64_t zero_point = 0);

/// The tensors of a convolution compute (NCHW data, OIHW weights of one group's input channels,
/// or depthwise [c, 1, r, s] weights),
/// shared by the x86 and CUDA templates.
struct Conv2dOperands {
  te::Tensor data;    ///< input [n, c, h, w]
  te::Tensor kernel;  ///< weights
  te::Tensor padded;  ///< zero-padded input (a stage to compute or inline)
  te::Tensor out;     ///< output [n, k, oh, ow]
};

/// The plain NCHW convolution compute for `sh` (checked; `UserError` for an impossible shape).
Conv2dOperands Conv2dNCHWCompute(const Conv2dShape& sh);

/// Floating-point operations of one NCHW convolution of `sh`.
double Conv2dNCHWFlops(const Conv2dShape& sh);

/// The plain NCHW convolution (padding stage + one loop nest): the untuned baseline.
ScheduledOp Conv2dDefault(const Conv2dShape& shape);

}  // namespace topi
}  // namespace tessera

#endif  // TESSERA_COMPILER_TOPI_CONV2D_NCHWC_X86_H_
