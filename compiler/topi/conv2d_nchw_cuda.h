/// \file
/// Direct 2-D convolution for CUDA GPUs, NCHW data and OIHW weights:
/// `output[n, k, y, x] = sum_{c, r, s} pad(data)[n, c, y*stride + r, x*stride + s] *
/// kernel[k, c, r, s]` (the compute of `Conv2dNCHWCompute`).
///
/// The tunable template `conv2d_nchw.cuda` gives each thread block a tile of output channels ×
/// rows × columns (threadIdx.z/y/x), each thread a register tile in a local cache; input
/// channels are stepped by tile_rc, and for each step the block's padded input window and
/// weights are staged in shared memory, fetched by all its threads together. The padding is
/// inlined into the fetch.
#ifndef TESSERA_COMPILER_TOPI_CONV2D_NCHW_CUDA_H_
#define TESSERA_COMPILER_TOPI_CONV2D_NCHW_CUDA_H_

#include "compiler/space/config_space.h"
#include "compiler/topi/conv2d_nchwc_x86.h"
#include "compiler/topi/scheduled_op.h"

namespace tessera {
namespace topi {

/// The configuration space of `conv2d_nchw.cuda`: tile_f, tile_y, tile_x (3-way splits of the
/// output channels, rows and columns: blocks, threads, register tile; inner factors ≤ 4) and
/// tile_rc (2-way split of the input channels, step ≤ 4), auto_unroll (0, 512). A config whose
/// shared tiles exceed the device's shared memory fails to build with a `UserError` (a large
/// kernel or stride). Throws `UserError` for an impossible shape.
space::ConfigSpace Conv2dNCHWCUDASpace(const Conv2dShape& shape);

/// The tiled convolution for `config`; args: data[n, c, h, w], kernel[k, c, r, s],
/// output[n, k, oh, ow].
ScheduledOp Conv2dNCHWCUDA(const Conv2dShape& shape, const space::ConfigEntity& config);

}  // namespace topi
}  // namespace tessera

#endif  // TESSERA_COMPILER_TOPI_CONV2D_NCHW_CUDA_H_
