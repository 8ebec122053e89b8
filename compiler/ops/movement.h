/// \file
/// The typed attributes of the data-movement operators (Transpose, Slice), parsed in one place
/// for inference, evaluation, computes and graph rewrites.
#ifndef TESSERA_COMPILER_OPS_MOVEMENT_H_
#define TESSERA_COMPILER_OPS_MOVEMENT_H_

#include <cstdint>
#include <vector>

#include "compiler/graph/graph.h"

namespace tessera {
namespace ops {

/// Transpose's `perm` for a rank-`rank` input (reversed axes when the attribute is absent).
std::vector<int64_t> TransposePerm(const graph::Node& node, size_t rank);

/// Slice's window along every axis of its input (start clamped into the input, step, and the
/// output's size), from its constant starts, ends, axes and steps.
struct SliceWindow {
  std::vector<int64_t> start;  ///< first element read, per input axis
  std::vector<int64_t> step;   ///< step between elements read, per input axis
  std::vector<int64_t> shape;  ///< the output's shape
};

/// The window of Slice `node`; throws `UserError` for inputs computed at run time, an axis out
/// of range or a step of 0.
SliceWindow ParseSlice(const graph::Graph& g, const graph::Node& node);

}  // namespace ops
}  // namespace tessera

#endif  // TESSERA_COMPILER_OPS_MOVEMENT_H_
