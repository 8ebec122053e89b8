// Private to build_model: a channel shuffle after a channel concatenation (ShuffleNet's
// Concat, Reshape to [N, g, C/g, H, W], Transpose [0, 2, 1, 3, 4], Reshape back to
// [N, C, H, W]), whose concatenated inputs may be channel slices of other values, recognized in
// a fused group so that it runs as one kernel in the blocked layout.
#ifndef TESSERA_COMPILER_DRIVER_CHANNEL_SHUFFLE_H_
#define TESSERA_COMPILER_DRIVER_CHANNEL_SHUFFLE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "compiler/graph/graph.h"

namespace tessera {
namespace driver {

// One input of the concatenation: a value, or a slice of its channels.
struct ShuffleSource {
  int value = -1;             // the value read (a slice's input)
  int64_t first_channel = 0;  // the slice's first channel in `value` (0: the whole value)
  int64_t channels = 0;       // channels it gives the concatenation
};

// out[:, c] = concat[:, (c % groups) * (channels / groups) + c / groups].
struct ChannelShuffle {
  int64_t groups = 0;
  int64_t channels = 0;                // C, of the concatenation and of the output
  std::vector<ShuffleSource> sources;  // in concatenation order
  const graph::Node* concat = nullptr;
};

// The shuffle `group` computes (its nodes: slices feeding the concatenation, the
// concatenation, then exactly the reshape, transpose and reshape), or nullopt.
std::optional<ChannelShuffle> MatchChannelShuffle(const graph::Graph& g,
                                                  const std::vector<const graph::Node*>& group);

}  // namespace driver
}  // namespace tessera

#endif  // TESSERA_COMPILER_DRIVER_CHANNEL_SHUFFLE_H_
