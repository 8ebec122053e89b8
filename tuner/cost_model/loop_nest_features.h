/// \file
/// Features of a candidate's lowered loop nest, in a fixed-length layout so that every candidate
/// of a template (and every shape) shares one column meaning.
///
/// The nest described is the one around the most executed store (the main computation). Its loop
/// levels are numbered from the innermost outwards (level 0 = innermost), so the levels that
/// matter most for vectors and caches always sit in the same columns. Layout:
/// - per level (`kFeatureLoopLevels`): log2(1+extent), one-hot of serial/parallel/vectorized/
///   unrolled, log2(1+product of the extents of this level and all inside it);
/// - per buffer touched by the main store (`kFeatureBuffers`; the stored buffer first, then loads
///   in order of appearance): log2 bytes per element, log2(1+|stride|) along the innermost level,
///   and per level: log2(1+bytes touched by the loops at or inside it) and log2(1+reuse, the
///   product of the extents of those loops that do not move the access);
/// - totals: log2(1+stores executed), log2(1+float operations executed), number of loop nests.
/// Missing levels and buffers are zeros; non-constant extents count as 1.
#ifndef TESSERA_TUNER_COST_MODEL_LOOP_NEST_FEATURES_H_
#define TESSERA_TUNER_COST_MODEL_LOOP_NEST_FEATURES_H_

#include <vector>

#include "compiler/ir/stmt.h"

namespace tessera {
namespace tuner {

/// Loop levels described, counted from the innermost.
constexpr int kFeatureLoopLevels = 8;
/// Buffers described.
constexpr int kFeatureBuffers = 4;

/// Length of the vector `LoopNestFeatures` returns.
int LoopNestFeatureCount();

/// The features of the lowered body `body` (flattened: 1-D `Load`/`Store` indices).
std::vector<float> LoopNestFeatures(const ir::Stmt& body);

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_COST_MODEL_LOOP_NEST_FEATURES_H_
