/// \file
/// Depthwise 2-D convolution for CUDA GPUs (NCHW, channel multiplier 1), the compute of
/// `depthwise_conv2d.x86`.
///
/// The tunable template `depthwise_conv2d.cuda` runs one (batch, channel) plane tile per thread
/// block (blockIdx.z over planes), tile_y × tile_x threads per block, each computing a register
/// tile of output rows × columns in a local cache; the padding is inlined (a depthwise kernel
/// reads each input element only a few times, so it is read straight from global memory).
#ifndef TESSERA_COMPILER_TOPI_DEPTHWISE_CONV2D_CUDA_H_
#define TESSERA_COMPILER_TOPI_DEPTHWISE_CONV2D_CUDA_H_

#include "compiler/space/config_space.h"
#include "compiler/topi/conv2d_nchwc_x86.h"
#include "compiler/topi/scheduled_op.h"

namespace tessera {
namespace topi {

/// The configuration space of `depthwise_conv2d.cuda` (`shape.k` must equal `shape.c`): tile_y,
/// tile_x (3-way splits of the output rows and columns: blocks, threads ≤ 32, register tile
/// ≤ 32) and auto_unroll (0, 512). Throws `UserError` for an impossible shape.
space::ConfigSpace DepthwiseConv2dCUDASpace(const Conv2dShape& shape);

/// The tiled depthwise convolution for `config`; args: data[n, c, h, w], kernel[c, 1, r, s],
/// output[n, c, oh, ow].
ScheduledOp DepthwiseConv2dCUDA(const Conv2dShape& shape, const space::ConfigEntity& config);

}  // namespace topi
}  // namespace tessera

#endif  // TESSERA_COMPILER_TOPI_DEPTHWISE_CONV2D_CUDA_H_
