/// \file
/// Depthwise 2-D convolution for x86 in the blocked NCHWc layout (channel multiplier 1):
/// `out[n, C, y, x, c] = sum_{r, s} pad(data)[n, C, y*stride + r, x*stride + s, c] *
/// kernel[C, r, s, c]` with channel `C * bn + c`.
///
/// The tunable template `depthwise_conv2d_NCHWc.x86` vectorizes along the channel block, so every
/// kernel tap is one contiguous vector load whatever the stride (the NCHW template vectorizes
/// along output columns, which a stride of 2 turns into gathers). Data, weights and output are
/// blocked with the same `bn` (`tile_c`): data `NCHW[bn]c`, weights `[C / bn, R, S, bn]` (packed
/// once, `task::ToNCHWc` of the weights viewed as 1×C×R×S), output `NCHW[bn]c`.
#ifndef TESSERA_COMPILER_TOPI_DEPTHWISE_CONV2D_NCHWC_X86_H_
#define TESSERA_COMPILER_TOPI_DEPTHWISE_CONV2D_NCHWC_X86_H_

#include <cstdint>

#include "compiler/space/config_space.h"
#include "compiler/topi/conv2d_nchwc_x86.h"
#include "compiler/topi/output_epilogue.h"
#include "compiler/topi/scheduled_op.h"
#include "compiler/topi/vector_unit.h"

namespace tessera {
namespace topi {

/// The configuration space of `depthwise_conv2d_NCHWc.x86` for `shape` (its `k` must equal `c`):
/// tile_c (channel block, inner ≤ 64), tile_oh (output rows of the register tile, ≤ 4), tile_ow
/// (output columns of the register tile, ≤ 16) and pad_inline (0: the padding is its own
/// parallel stage; 1: taps read through a bounds check). The fallback blocks one vector of
/// `unit`. Throws `UserError` for an impossible shape.
space::ConfigSpace DepthwiseConv2dNCHWcX86Space(const Conv2dShape& shape,
                                                const VectorUnit& unit = {});

/// The configuration space of `depthwise_conv2d_NCHWc.arm`: the knobs of the x86 space, whose
/// computation it runs, with a fallback row of up to 16 output columns (the largest factor of
/// the width) where their accumulators and the kernel's taps fit the registers (3×3 on NEON).
space::ConfigSpace DepthwiseConv2dNCHWcArmSpace(const Conv2dShape& shape, const VectorUnit& unit);

/// The channel block of `config`.
int64_t DepthwiseConv2dNCHWcBlock(const space::ConfigEntity& config);

/// `config` (a point of `space`) with channel blocks of `bn` instead (a model build gives an
/// untuned depthwise convolution its producer's block); `config` itself when `bn` is no choice.
space::ConfigEntity DepthwiseConv2dNCHWcWithBlock(const space::ConfigSpace& space,
                                                  const space::ConfigEntity& config, int64_t bn);

/// The blocked depthwise convolution for `config`; args: data `NCHW[bn]c`, kernel
/// `[C / bn, R, S, bn]`, the epilogue's inputs, output `NCHW[bn]c` (`epilogue` applied, when
/// given).
ScheduledOp DepthwiseConv2dNCHWcX86(const Conv2dShape& shape, const space::ConfigEntity& config,
                                    const OutputEpilogue* epilogue = nullptr);

}  // namespace topi
}  // namespace tessera

#endif  // TESSERA_COMPILER_TOPI_DEPTHWISE_CONV2D_NCHWC_X86_H_
