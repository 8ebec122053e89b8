/// \file
/// Depthwise 2-D convolution for x86 (NCHW, channel multiplier 1):
/// `out[n, c, y, x] = sum_{r, s} pad(data)[n, c, y*stride + r, x*stride + s] * kernel[c, 0, r, s]`.
///
/// The tunable template `depthwise_conv2d.x86` keeps a tile of output rows × columns in a local
/// cache (columns vectorized), runs (batch, channel) planes in parallel, and either pads the
/// input in its own stage or inlines the padding into the convolution.
#ifndef TESSERA_COMPILER_TOPI_DEPTHWISE_CONV2D_X86_H_
#define TESSERA_COMPILER_TOPI_DEPTHWISE_CONV2D_X86_H_

#include <string>

#include "compiler/space/config_space.h"
#include "compiler/topi/conv2d_nchwc_x86.h"
#include "compiler/topi/scheduled_op.h"

namespace tessera {
namespace topi {

/// Throws `UserError` (prefixed `what`) unless `shape` is a depthwise convolution: positive
/// dimensions, `k == c`, a positive stride and a kernel that fits the padded input.
void CheckDepthwiseShape(const Conv2dShape& shape, const std::string& what);

/// The configuration space of `depthwise_conv2d.x86` for `shape` (its `k` must equal `c`):
/// tile_oh, tile_ow (2-way splits, inner ≤ 16 / ≤ 32) and pad_inline (0/1). Throws `UserError`
/// for an impossible shape.
space::ConfigSpace DepthwiseConv2dX86Space(const Conv2dShape& shape);

/// The tiled depthwise convolution for `config`.
ScheduledOp DepthwiseConv2dX86(const Conv2dShape& shape, const space::ConfigEntity& config);

/// The depthwise compute for `shape` (checked; `UserError` for an impossible one), shared by
/// the x86 and CUDA templates.
Conv2dOperands DepthwiseConv2dCompute(const Conv2dShape& shape);

/// Floating-point operations of one depthwise convolution of `shape`.
double DepthwiseConv2dFlops(const Conv2dShape& shape);

/// The plain compute (padding stage + one loop nest).
ScheduledOp DepthwiseConv2dDefault(const Conv2dShape& shape);

}  // namespace topi
}  // namespace tessera

#endif  // TESSERA_COMPILER_TOPI_DEPTHWISE_CONV2D_X86_H_
