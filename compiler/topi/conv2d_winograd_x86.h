/// \file
/// 3×3 stride-1 convolution for x86 by Winograd's minimal filtering F(m×m, 3×3), in the blocked
/// NCHWc layout.
///
/// Each m×m tile of the output is computed from an α×α tile of the input (α = m + 2) as
/// Aᵀ[(G g Gᵀ) ⊙ (Bᵀ d B)]A: the weights are transformed once, when the model is built
/// (`WinogradWeights`), and the α² element-wise products over the input channels become α²
/// small matrix products (tiles × input channels by input channels × output channels). F(4×4)
/// does 36 multiplications per 16 outputs where the direct convolution does 144 (4×); F(2×2),
/// 16 per 4 (2.25×), with smaller rounding errors.
///
/// The tunable template `conv2d_winograd_NCHWc.x86` reads data as `NCHW[ic_bn]c` and writes
/// `NCHW[oc_bn]c`, like `conv2d_NCHWc.x86`, so it takes the place of that template in a model.
/// Per row of output tiles (in parallel) it transforms the row's input tiles, runs the α²
/// products over them with a register tile of `tiles` tiles × oc_bn channels, and transforms the
/// results back into the output (with the fused epilogue), so the transformed tensors of a row
/// stay in the core's caches.
#ifndef TESSERA_COMPILER_TOPI_CONV2D_WINOGRAD_X86_H_
#define TESSERA_COMPILER_TOPI_CONV2D_WINOGRAD_X86_H_

#include <cstdint>
#include <vector>

#include "compiler/space/config_space.h"
#include "compiler/topi/conv2d_nchwc_x86.h"
#include "compiler/topi/output_epilogue.h"
#include "compiler/topi/scheduled_op.h"
#include "compiler/topi/vector_unit.h"

namespace tessera {
namespace topi {

/// Whether `conv2d_winograd_NCHWc.x86` computes `shape`: a 3×3 kernel, stride 1, and an output
/// whose height and width are even (tiles of 2×2 at least).
bool WinogradApplies(const Conv2dShape& shape);

/// The configuration space of `conv2d_winograd_NCHWc.x86`: tile_ic and tile_oc (the channel
/// blocks, as in `conv2d_NCHWc.x86`), tile_m (the output tile: 2 or 4, those that divide the
/// output) and tiles (output tiles per register tile, the largest divisor of a row's tiles at
/// most this). Throws `UserError` for a shape it does not compute.
space::ConfigSpace Conv2dWinogradX86Space(const Conv2dShape& shape, const VectorUnit& unit = {});

/// The output tile m of `config`.
int64_t WinogradTile(const space::ConfigEntity& config);

/// Seconds a model spends on a Winograd kernel of `shape` with output tiles of `m` beyond its
/// record's cost. Records are timed with the weights in cache; in a model they come from memory,
/// and the transformed weights are (m + 2)² / 9 times the direct ones: the difference, read once
/// at `memory_bytes_per_s` (the target's `TargetHardware`: 10 GB/s, a pessimistic x86 core; 4 on
/// a Raspberry Pi 4's). ResNet-50's 256@14x14 (F(2x2): 4.2 MB against 2.4) ran 1.1 ms in the
/// model at two threads against 0.7 in its record, and the direct convolution 0.87.
double WinogradExtraWeightSeconds(const Conv2dShape& shape, int64_t m,
                                  double memory_bytes_per_s = 10e9);

/// The one rule for direct or Winograd, used by model builds and by the tuner's estimate of a
/// model's latency: a model runs `shape` through `conv2d_winograd_NCHWc.x86` (its record:
/// `winograd_s` seconds, output tiles of `m`) instead of `conv2d_NCHWc.x86` (its record:
/// `direct_s` seconds, +infinity for none) when the Winograd record plus
/// `WinogradExtraWeightSeconds` (at `memory_bytes_per_s`) is faster. No Winograd record
/// (+infinity) never wins.
bool WinogradBeatsDirect(const Conv2dShape& shape, double direct_s, double winograd_s, int64_t m,
                         double memory_bytes_per_s = 10e9);

/// The weights of `shape` (`kernel[k, c, 3, 3]`, row-major) transformed for tiles of `m` and laid
/// out as the template reads them: `U[ξ, ν, k / oc_bn, c / ic_bn, c % ic_bn, k % oc_bn]` with
/// ξ, ν < m + 2. Computed in double precision.
std::vector<float> WinogradWeights(const std::vector<float>& kernel, const Conv2dShape& shape,
                                   int64_t m, int64_t ic_bn, int64_t oc_bn);

/// The blocked Winograd convolution for `config` (a point of `Conv2dWinogradX86Space(shape)`);
/// args: data `NCHW[ic_bn]c`, the transformed weights (`WinogradWeights`), the epilogue's inputs,
/// output `NCHW[oc_bn]c` (`epilogue` applied, when given). `input_halo` as for `Conv2dNCHWcX86`.
ScheduledOp Conv2dWinogradX86(const Conv2dShape& shape, const space::ConfigEntity& config,
                              const OutputEpilogue* epilogue = nullptr, bool input_halo = false);

}  // namespace topi
}  // namespace tessera

#endif  // TESSERA_COMPILER_TOPI_CONV2D_WINOGRAD_X86_H_
