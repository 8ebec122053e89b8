/// \file
/// Helpers of the operators' tensor-expression computes: constants, index lists, reads of
/// broadcast operands, and sums over axes.
#ifndef TESSERA_COMPILER_OPS_COMPUTE_UTIL_H_
#define TESSERA_COMPILER_OPS_COMPUTE_UTIL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"
#include "compiler/ops/op_def.h"
#include "compiler/te/tensor.h"

namespace tessera {
namespace ops {

/// The int32 immediate `v` (shapes and indices of computes).
ir::Expr I(int64_t v);

/// `shape` as immediates.
std::vector<ir::Expr> ShapeExprs(const std::vector<int64_t>& shape);

/// Output `i` of `node`.
const graph::Value& OutValue(const graph::Graph& g, const graph::Node& node, size_t i = 0);

/// Output `output` of `node` as one compute of `body`, named after the node (and, from the
/// second output on, "_<output>").
te::Tensor OutputCompute(const graph::Graph& g, const graph::Node& node, size_t output,
                         const std::function<ir::Expr(const std::vector<ir::Var>&)>& body);

/// Element of a tensor operand at explicit indices (a scalar ignores them).
ir::Expr At(const Operand& o, const std::vector<ir::Expr>& index);

/// A reduction of `in` over `axes` (kept as 1 or dropped) as a compute named `name` with tag
/// "reduce": each element is `body(element, index into in)`, summed (or maximized for
/// `ir::ReduceKind::kMax`, minimized for `kMin`).
te::Tensor ReduceSum(const std::string& name, const Operand& in, std::vector<int64_t> axes,
                     bool keepdims,
                     const std::function<ir::Expr(ir::Expr, const std::vector<ir::Expr>&)>& body,
                     ir::ReduceKind kind = ir::ReduceKind::kSum);

/// A window's input position along one axis, and whether it lies inside the input.
struct Tap {
  ir::Expr pos;     ///< the input position
  ir::Expr inside;  ///< true when `pos` lies inside the input
};

/// The tap `k` (a reduction variable) of the window of output position `out` along an axis of
/// `size` elements padded by `pad` at its beginning.
Tap WindowTap(const ir::Expr& out, const ir::Expr& k, int64_t stride, int64_t pad, int64_t dilation,
              int64_t size);

/// Index of the reduced tensor (keepdims) matching a full index.
std::vector<ir::Expr> KeptIndex(const std::vector<ir::Var>& i, const std::vector<int64_t>& axes);

}  // namespace ops
}  // namespace tessera

#endif  // TESSERA_COMPILER_OPS_COMPUTE_UTIL_H_
