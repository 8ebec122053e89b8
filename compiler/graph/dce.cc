#include "compiler/graph/dce.h"

namespace tessera {
namespace graph {

void EliminateDeadCode(Graph& g) {
  std::vector<int> uses = g.UseCounts();
  std::vector<bool> keep(g.nodes.size(), true);
  // Backwards: dropping a node may leave its producers unread.
  for (size_t n = g.nodes.size(); n-- > 0;) {
    const Node& node = g.nodes[n];
    bool read = false;
    for (int out : node.outputs) read = read || uses[out] > 0;
    if (read) continue;
    keep[n] = false;
    for (int in : node.inputs) {
      if (in >= 0) --uses[in];
    }
  }
  std::vector<Node> kept;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    if (keep[n]) kept.push_back(std::move(g.nodes[n]));
  }
  g.nodes = std::move(kept);
  g.Compact();
}

}  // namespace graph
}  // namespace tessera
