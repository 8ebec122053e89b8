/// \file
/// Private to the registry: what the quantization family and the integer operators share —
/// the checks of scales and zero points, their reads in computes, and saturation.
#ifndef TESSERA_COMPILER_OPS_QUANT_PARAMS_H_
#define TESSERA_COMPILER_OPS_QUANT_PARAMS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"
#include "compiler/ops/operand.h"

namespace tessera {
namespace ops {

/// One scale and its zero point of a node: input indices (`zero_point` -1 when the node has
/// none), what the messages call them, and which dimension a 1-D pair runs along.
struct QuantParams {
  size_t scale = 0;     ///< input index of the scale
  int zero_point = -1;  ///< input index of the zero point, -1 when absent
  int64_t axis = 0;     ///< the quantized tensor's dimension a 1-D pair runs along
};

/// Checks `p` as the quantization of a tensor of `shape` (named `what` in messages): a float32
/// scale, positive and finite where it is a constant; a zero point of one of `zero_types`, of
/// the scale's shape; one element each, or one per element of dimension `p.axis` of `shape`.
/// Throws `UserError` naming the node.
void CheckQuantParams(const graph::Graph& g, const graph::Node& node, const QuantParams& p,
                      const std::vector<int64_t>& shape, const std::string& what,
                      const std::vector<graph::DType>& zero_types);

/// True when `scale` holds one value per position along an axis (more than one element, or
/// a rank above 1), not one for the whole tensor.
bool IsPerAxis(const graph::Value& scale);

/// The operand of input `i` (-1: none), or an absent one for an omitted optional input.
Operand OperandAt(const std::vector<Operand>& in, int i);

/// Checks that input `i` of `node` (named `what`) is int8 or uint8; returns its type.
graph::DType CheckQuantized(const graph::Graph& g, const graph::Node& node, size_t i,
                            const std::string& what);

/// The element of a scale or zero point for position `along` of its axis (a one-element
/// parameter ignores it); `fallback` when the operand is absent (an omitted zero point).
ir::Expr QuantParamAt(const Operand& p, const ir::Expr& along, const ir::Expr& fallback);

/// `v` (float32, already rounded and shifted by the zero point) clamped to the range of `type`
/// (int8 or uint8) and converted to it.
ir::Expr SaturateTo(graph::DType type, ir::Expr v);

/// The element type of the zero point at input `i`, or uint8 when the node has none (ONNX's
/// default output type of QuantizeLinear).
graph::DType ZeroPointType(const graph::Graph& g, const graph::Node& node, int i);

}  // namespace ops
}  // namespace tessera

#endif  // TESSERA_COMPILER_OPS_QUANT_PARAMS_H_
