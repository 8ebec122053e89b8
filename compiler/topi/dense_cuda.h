/// \file
/// Dense for CUDA GPUs: `C[m, n] = sum_k A[m, k] * W[n, k]`, W as given (no packing).
///
/// The tunable template `dense.cuda` gives each thread block a tile of C (tile_y × tile_x
/// threads, each computing a reg_y × reg_x register tile held in a local cache), steps k by the
/// inner tile_k factor, and stages the block's slices of A and W in shared memory, fetched by all
/// threads of the block together with vector loads of `vec_load` lanes.
#ifndef TESSERA_COMPILER_TOPI_DENSE_CUDA_H_
#define TESSERA_COMPILER_TOPI_DENSE_CUDA_H_

#include "compiler/space/config_space.h"
#include "compiler/topi/dense_x86.h"
#include "compiler/topi/scheduled_op.h"

namespace tessera {
namespace topi {

/// The configuration space of `dense.cuda` for `shape`: tile_y and tile_x (3-way splits: blocks,
/// threads, register tile; inner factors ≤ 16, so at most 256 threads), tile_k (2-way, the k step
/// ≤ 16; at most 32 KiB of shared memory), vec_load (1, 2, 4) and auto_unroll (0, 512). Every
/// point builds for every CUDA GPU. Throws `UserError` for non-positive dimensions.
space::ConfigSpace DenseCUDASpace(const DenseShape& shape);

/// The tiled dense for `config` (a point of `DenseCUDASpace(shape)`); args: A[m, k], W[n, k],
/// C[m, n]. `storage` is the element type of A and W (float32, or float16: half the memory
/// traffic and half the shared tiles); the products are summed in float32, and C is float32.
ScheduledOp DenseCUDA(const DenseShape& shape, const space::ConfigEntity& config,
                      ir::DataType storage = ir::DataType::Float(32));

}  // namespace topi
}  // namespace tessera

#endif  // TESSERA_COMPILER_TOPI_DENSE_CUDA_H_
