/// \file
/// The operands of operator computes: a tensor argument or a scalar constant inlined as an
/// immediate, and how a compute reads it.
#ifndef TESSERA_COMPILER_OPS_OPERAND_H_
#define TESSERA_COMPILER_OPS_OPERAND_H_

#include <cstdint>
#include <vector>

#include "compiler/graph/graph.h"
#include "compiler/te/tensor.h"

namespace tessera {
namespace ops {

/// A kernel operand: a tensor argument, or a scalar constant inlined as an immediate.
struct Operand {
  te::Tensor tensor;           ///< the argument (null for a scalar)
  ir::Expr scalar;             ///< the immediate (null for a tensor)
  std::vector<int64_t> shape;  ///< the graph value's shape
};

/// Index variables as expressions (tensor reads take expressions).
std::vector<ir::Expr> E(const std::vector<ir::Var>& index);

/// The element type kernels use for a graph type (bool is stored as uint8).
ir::DataType KernelType(graph::DType t);

/// Element `index` of `operand` broadcast to an output of rank `index.size()`.
ir::Expr Read(const Operand& operand, const std::vector<ir::Var>& index);

}  // namespace ops
}  // namespace tessera

#endif  // TESSERA_COMPILER_OPS_OPERAND_H_
