/// \file
/// Dense (fully connected) for x86: `C[m, n] = sum_k A[m, k] * W[n, k]`.
///
/// The tunable template `dense.x86` reads W packed into blocks of `bn` columns (`packed_W[n / bn,
/// k, n % bn]`, bn = the innermost x tile) so that the inner loop reads it contiguously. Weights
/// are constants of a model: `DensePackWeights` packs them once (a graph compiler runs it at
/// build time), and the kernel keeps a register tile of C in a local cache, vectorizes along n
/// and runs the outer tiles in parallel.
#ifndef TESSERA_COMPILER_TOPI_DENSE_X86_H_
#define TESSERA_COMPILER_TOPI_DENSE_X86_H_

#include <cstdint>
#include <functional>

#include "compiler/space/config_space.h"
#include "compiler/topi/output_epilogue.h"
#include "compiler/topi/scheduled_op.h"
#include "compiler/topi/vector_unit.h"

namespace tessera {
namespace topi {

/// Shape of a dense: A is m×k, W is n×k, C is m×n (float32).
struct DenseShape {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
};

/// The configuration space of `dense.x86` for `shape`: tile_y and tile_x (3-way splits, inner
/// factors ≤ 64), tile_k (2-way, ≤ 64), unroll_k (0/1), k_outer (0/1: the reduction's chunks
/// outside the register tiles of a whole parallel block), prefetch (0/1: the next weights a line
/// per reduction step); its fallback is a register tile sized for `unit` (AVX-512: 8 × 48 where
/// 48 divides n, else 8 × 32; AVX2: 4 × 24 or 4 × 16) in blocks of up to 128 rows × one panel,
/// with prefetch. Throws `UserError` for non-positive dimensions.
space::ConfigSpace DenseX86Space(const DenseShape& shape, const VectorUnit& unit = VectorUnit{});

/// A dense template's configuration space for a shape and vector unit (`DenseX86Space`,
/// `DenseArmSpace`): what the x86 and Arm templates of one computation differ in.
using DenseSpaceFn = std::function<space::ConfigSpace(const DenseShape&, const VectorUnit&)>;

/// The configuration space of `dense.arm`, the same computation for vector units whose
/// multiply-adds take a lane of a register but no operand broadcast from memory (Arm NEON): the
/// knobs of `DenseX86Space` with columns in whole vectors of `unit`, the reduction's inner factor
/// a multiple of 4 and unrolled (a row's four values of A load as one vector and feed
/// lane-indexed multiply-adds); its fallback tile is 8 rows × 2 vectors where the registers hold
/// the row vectors of A beside the accumulators. `DenseX86` runs its configs.
space::ConfigSpace DenseArmSpace(const DenseShape& shape, const VectorUnit& unit);

/// The column block `bn` of the packed weights that `config` reads.
int64_t DenseWeightBlock(const space::ConfigEntity& config);

/// The tiled dense for `config` (a point of `DenseX86Space(shape)`); args: A[m, k],
/// packed_W[n / bn, k, bn] (bn = `DenseWeightBlock(config)`), the epilogue's inputs, C[m, n].
/// With an `epilogue` (bias, GELU, residual add: an [m, n] compute of the result) the kernel
/// writes `epilogue->apply(result)` from the register tile, one kernel for the whole group.
ScheduledOp DenseX86(const DenseShape& shape, const space::ConfigEntity& config,
                     const OutputEpilogue* epilogue = nullptr);

/// `shape` counted in int32 words of four bytes along k (k / 4): the shape whose float template
/// `dense_int8.x86` follows, word for element. Its config space is
/// `DenseX86Space(DenseWords(shape))`.
DenseShape DenseWords(const DenseShape& shape);

/// The int8 dense for `config` (a point of `DenseX86Space(DenseWords(shape))`): uint8 A times
/// int8 W, summed exactly in int32, four bytes per `ir::dot4_u8s8` (x86 VNNI's vpdpbusd where the
/// target has it). Args: A[m, k / 4] as int32 words of four consecutive bytes of a row (byte j of
/// word i is A[m, 4 i + j]), packed_W[n / bn, k / 4, bn] of words of W's rows, the epilogue's
/// inputs, C[m, n] int32 (`epilogue` applied, when given). Zero points are the caller's. Throws
/// `UserError` unless k is a multiple of 4.
ScheduledOp DenseInt8X86(const DenseShape& shape, const space::ConfigEntity& config,
                         const OutputEpilogue* epilogue = nullptr);

/// The plain int8 dense (uint8 A[m, k], int8 W[n, k], int32 C[m, n]): the untuned baseline of
/// `dense_int8.x86`.
ScheduledOp DenseInt8Default(const DenseShape& shape);

/// The weight packing of `DenseX86`; args: W[n, k], packed_W[n / bn, k, bn]. Throws `UserError`
/// unless `bn` divides n.
ScheduledOp DensePackWeights(const DenseShape& shape, int64_t bn);

/// The plain compute with its default schedule (one loop nest, no packing): the untuned
/// baseline.
ScheduledOp DenseDefault(const DenseShape& shape);

}  // namespace topi
}  // namespace tessera

#endif  // TESSERA_COMPILER_TOPI_DENSE_X86_H_
