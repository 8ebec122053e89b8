/// \file
/// A QuantizeLinear whose output a DequantizeLinear of the same scale and zero point reads (what
/// a QDQ model puts around every float operator) becomes one `QuantizeDequantize` node: the
/// float value the pair gives, computed where it is needed. Being float in and float out, it
/// joins its producer's kernel (a convolution's output stage) where the pair, with its int8 or
/// uint8 value between, took two kernels and a round trip through memory.
#ifndef TESSERA_COMPILER_GRAPH_FOLD_QUANTIZE_PAIRS_H_
#define TESSERA_COMPILER_GRAPH_FOLD_QUANTIZE_PAIRS_H_

#include "compiler/graph/graph.h"

namespace tessera {
namespace graph {

/// Rewrites every DequantizeLinear that reads a QuantizeLinear of the same scale, zero point
/// and axis into a `QuantizeDequantize` of the QuantizeLinear's input (one per QuantizeLinear:
/// the others read the first); a QuantizeLinear left without readers is removed.
void FoldQuantizePairs(Graph& g);

}  // namespace graph
}  // namespace tessera

#endif  // TESSERA_COMPILER_GRAPH_FOLD_QUANTIZE_PAIRS_H_
