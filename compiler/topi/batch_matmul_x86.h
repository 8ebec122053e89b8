/// \file
/// Batched matrix multiply for x86: `C[b, m, n] = sum_k A[b, m, k] * B[b, k, n]` (ONNX MatMul's
/// layout, so a model's operands need no transpose).
///
/// The tunable template `batch_matmul.x86` tiles m and n with a register tile of C kept in a
/// local cache, vectorized along n (contiguous rows of B), and runs batches and outer tiles in
/// parallel.
#ifndef TESSERA_COMPILER_TOPI_BATCH_MATMUL_X86_H_
#define TESSERA_COMPILER_TOPI_BATCH_MATMUL_X86_H_

#include <cstdint>

#include "compiler/space/config_space.h"
#include "compiler/topi/scheduled_op.h"
#include "compiler/topi/vector_unit.h"

namespace tessera {
namespace topi {

/// Shape of a batch matmul (float32): A is b×m×k, B is b×k×n, C is b×m×n.
struct BatchMatmulShape {
  int64_t b = 1, m = 0, n = 0, k = 0;
};

/// The configuration space of `batch_matmul.x86`: tile_y, tile_x (2-way splits, inner ≤ 32),
/// tile_k (2-way, ≤ 64). Throws `UserError` for non-positive dimensions.
space::ConfigSpace BatchMatmulX86Space(const BatchMatmulShape& shape);

/// The configuration space of `batch_matmul.arm`, the same computation for NEON: the x86 knobs
/// with the reduction's inner factor a multiple of 4 where k allows and unroll_k (1: unrolled,
/// so a row's four values of A load as one vector feeding lane-indexed multiply-adds); its
/// fallback tile is 8 rows × 2 vectors of `unit` (4 rows with fewer than 26 registers).
space::ConfigSpace BatchMatmulArmSpace(const BatchMatmulShape& shape, const VectorUnit& unit);

/// The tiled batch matmul for `config` (a point of either space; a config without unroll_k
/// leaves the reduction's inner loop rolled).
ScheduledOp BatchMatmulX86(const BatchMatmulShape& shape, const space::ConfigEntity& config);

/// The plain compute with its default schedule.
ScheduledOp BatchMatmulDefault(const BatchMatmulShape& shape);

}  // namespace topi
}  // namespace tessera

#endif  // TESSERA_COMPILER_TOPI_BATCH_MATMUL_X86_H_
