#include "compiler/graph/pipeline.h"

#include "compiler/graph/dce.h"
#include "compiler/graph/expand_qlinear.h"
#include "compiler/graph/fold_batch_norm.h"
#include "compiler/graph/fold_constants.h"
#include "compiler/graph/fold_patterns.h"
#include "compiler/graph/fold_quantize_pairs.h"
#include "compiler/graph/fuse_ops.h"
#include "compiler/graph/simplify.h"

namespace tessera {
namespace graph {

const std::vector<GraphPass>& GraphPasses() {
  static const std::vector<GraphPass> passes = {
      {"expand_qlinear", ExpandQLinear},
      {"fold_constants", FoldConstants},
      {"simplify", Simplify},
      {"fold_batch_norm", FoldBatchNorm},
      {"fold_constants_again", FoldConstants},
      {"fold_patterns", FoldPatterns},
      {"fold_quantize_pairs", FoldQuantizePairs},
      {"dead_code", EliminateDeadCode},
      {"fuse_ops", FuseOps},
  };
  return passes;
}

void OptimizeGraph(Graph& g,
                   const std::function<void(const std::string&, const Graph&)>& after_pass) {
  for (const GraphPass& pass : GraphPasses()) {
    pass.run(g);
    if (after_pass) after_pass(pass.name, g);
  }
}

}  // namespace graph
}  // namespace tessera
