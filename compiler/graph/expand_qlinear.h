/// \file
/// The operator form of quantization in the QDQ form: a QLinearConv or QLinearMatMul with
/// constant weights becomes DequantizeLinear → Conv / MatMul → QuantizeLinear (the bias
/// dequantized at input scale × weight scale), so that both forms ONNX writes reach the same
/// graph: the weights fold into the float templates' weights and each output's quantization
/// pairs with its reader's dequantization (`FoldQuantizePairs`). An operator whose weights are
/// computed at run time, and ConvInteger / MatMulInteger (exact int32 results), keep their
/// integer computes.
#ifndef TESSERA_COMPILER_GRAPH_EXPAND_QLINEAR_H_
#define TESSERA_COMPILER_GRAPH_EXPAND_QLINEAR_H_

#include "compiler/graph/graph.h"

namespace tessera {
namespace graph {

/// Rewrites every QLinearConv and QLinearMatMul whose weights, scales and zero points are
/// constants into its QDQ form.
void ExpandQLinear(Graph& g);

}  // namespace graph
}  // namespace tessera

#endif  // TESSERA_COMPILER_GRAPH_EXPAND_QLINEAR_H_
