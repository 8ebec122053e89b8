#include "compiler/driver/channel_shuffle.h"

#include <algorithm>

#include "compiler/graph/shape.h"
#include "compiler/ops/movement.h"

namespace tessera {
namespace driver {
namespace {

using graph::Node;

// The channel window of a slice that keeps every batch, row and column of a 4-D value with
// step 1 (nullopt for any other slice).
std::optional<ShuffleSource> ChannelSlice(const graph::Graph& g, const Node& slice) {
  const std::vector<int64_t>& in = g.values[slice.inputs[0]].shape;
  if (in.size() != 4) return std::nullopt;
  ops::SliceWindow window;
  try {
    window = ops::ParseSlice(g, slice);
  } catch (const std::exception&) {  // run-time bounds: not a channel slice we can place
    return std::nullopt;
  }
  for (size_t axis = 0; axis < 4; ++axis) {
    if (window.step[axis] != 1) return std::nullopt;
    if (axis != 1 && (window.start[axis] != 0 || window.shape[axis] != in[axis])) {
      return std::nullopt;
    }
  }
  ShuffleSource source;
  source.value = slice.inputs[0];
  source.first_channel = window.start[1];
  source.channels = window.shape[1];
  return source;
}

}  // namespace

std::optional<ChannelShuffle> MatchChannelShuffle(const graph::Graph& g,
                                                  const std::vector<const Node*>& group) {
  const size_t n = group.size();
  if (n < 4) return std::nullopt;
  const Node& concat = *group[n - 4];
  const Node& split = *group[n - 3];
  const Node& transpose = *group[n - 2];
  const Node& merge = *group[n - 1];
  if (concat.op != "Concat" || split.op != "Reshape" || transpose.op != "Transpose" ||
      merge.op != "Reshape" || concat.outputs.size() != 1) {
    return std::nullopt;
  }
  const graph::Value& joined = g.values[concat.outputs[0]];
  const std::vector<int64_t>& c = joined.shape;
  const std::vector<int64_t>& s = g.values[split.outputs[0]].shape;
  if (c.size() != 4 || joined.dtype != graph::DType::kFloat32 ||
      graph::NormalizeAxis(concat.Int("axis", 0), 4, concat.name) != 1 || s.size() != 5 ||
      s[1] < 2 || s[1] * s[2] != c[1] || s[0] != c[0] || s[3] != c[2] || s[4] != c[3] ||
      ops::TransposePerm(transpose, 5) != std::vector<int64_t>{0, 2, 1, 3, 4} ||
      g.values[merge.outputs[0]].shape != c || split.inputs[0] != concat.outputs[0] ||
      transpose.inputs[0] != split.outputs[0] || merge.inputs[0] != transpose.outputs[0]) {
    return std::nullopt;
  }
  ChannelShuffle shuffle;
  shuffle.groups = s[1];
  shuffle.channels = c[1];
  shuffle.concat = &concat;
  for (int input : concat.inputs) {
    // A slice before the concatenation in the group feeds it; any other input is read whole.
    auto slice = std::find_if(group.begin(), group.end() - 4, [&](const Node* node) {
      return node->op == "Slice" && node->outputs.size() == 1 && node->outputs[0] == input;
    });
    ShuffleSource source;
    if (slice != group.end() - 4) {
      std::optional<ShuffleSource> window = ChannelSlice(g, **slice);
      if (!window) return std::nullopt;
      source = *window;
    } else {
      const std::vector<int64_t>& shape = g.values[input].shape;
      if (shape.size() != 4) return std::nullopt;
      source.value = input;
      source.channels = shape[1];
    }
    shuffle.sources.push_back(source);
  }
  // Every node before the concatenation is one of its slices.
  for (size_t i = 0; i + 4 < n; ++i) {
    if (group[i]->op != "Slice" || std::find(concat.inputs.begin(), concat.inputs.end(),
                                             group[i]->outputs[0]) == concat.inputs.end()) {
      return std::nullopt;
    }
  }
  return shuffle;
}

}  // namespace driver
}  // namespace tessera
