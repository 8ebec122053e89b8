/// \file
/// Batch-norm folding: a BatchNormalization after a convolution with constant weights is folded
/// into the weights and bias; any other becomes a per-channel scale and shift (Mul, Add).
#ifndef TESSERA_COMPILER_GRAPH_FOLD_BATCH_NORM_H_
#define TESSERA_COMPILER_GRAPH_FOLD_BATCH_NORM_H_

#include "compiler/graph/graph.h"

namespace tessera {
namespace graph {

/// Folds inference-mode batch normalizations.
void FoldBatchNorm(Graph& g);

}  // namespace graph
}  // namespace tessera

#endif  // TESSERA_COMPILER_GRAPH_FOLD_BATCH_NORM_H_
