/// \file
/// The graph pass pipeline: one flat list of named passes (`GraphPasses`), run in order by
/// `OptimizeGraph`, which can show the graph after each of them.
#ifndef TESSERA_COMPILER_GRAPH_PIPELINE_H_
#define TESSERA_COMPILER_GRAPH_PIPELINE_H_

#include <functional>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"

namespace tessera {
namespace graph {

/// A named graph transformation.
struct GraphPass {
  std::string name;                 ///< e.g. "fold_constants"
  std::function<void(Graph&)> run;  ///< the transformation
};

/// The passes in pipeline order: fold_constants → simplify → fold_batch_norm → fold_constants
/// again → dead_code → fuse_ops.
const std::vector<GraphPass>& GraphPasses();

/// Runs the pipeline on `g`; `after_pass` (when set) sees the graph after each pass.
void OptimizeGraph(Graph& g,
                   const std::function<void(const std::string&, const Graph&)>& after_pass = {});

}  // namespace graph
}  // namespace tessera

#endif  // TESSERA_COMPILER_GRAPH_PIPELINE_H_
