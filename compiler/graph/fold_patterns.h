/// \file
/// Recognizes the decomposed forms that `torch.onnx.export` writes at opset 13 for operators ONNX
/// only gained later, and puts the one operator back: `x * 0.5 * (1 + Erf(x / sqrt(2)))` becomes
/// `Gelu`, `x * Sigmoid(x)` becomes `Silu` (an operator of Tessera's own: ONNX has none),
/// `x * HardSigmoid(x)` with alpha 1/6 and beta 1/2 becomes `HardSwish`, and
/// ReduceMean / Sub / Pow 2 / ReduceMean / Add eps / Sqrt / Div / Mul gamma / Add beta over
/// trailing axes becomes `LayerNormalization`. One node then computes in one kernel (or one
/// template epilogue) what were two to nine kernels reading the tensor again each time.
#ifndef TESSERA_COMPILER_GRAPH_FOLD_PATTERNS_H_
#define TESSERA_COMPILER_GRAPH_FOLD_PATTERNS_H_

#include "compiler/graph/graph.h"

namespace tessera {
namespace graph {

/// Rewrites every decomposed GELU, SiLU, HardSwish and layer normalization whose intermediate
/// values have no other reader; the rest of the graph is left as it is.
void FoldPatterns(Graph& g);

}  // namespace graph
}  // namespace tessera

#endif  // TESSERA_COMPILER_GRAPH_FOLD_PATTERNS_H_
