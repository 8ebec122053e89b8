#include "compiler/ops/operand.h"

#include "compiler/ops/compute_util.h"

namespace tessera {
namespace ops {

using ir::DataType;
using ir::Expr;
using ir::Var;

std::vector<Expr> E(const std::vector<Var>& index) {
  return std::vector<Expr>(index.begin(), index.end());
}

DataType KernelType(graph::DType t) {
  switch (t) {
    case graph::DType::kFloat32:
      return DataType::Float(32);
    case graph::DType::kInt64:
      return DataType::Int(64);
    case graph::DType::kInt32:
      return DataType::Int(32);
    case graph::DType::kBool:
    case graph::DType::kUInt8:
      return DataType::UInt(8);
    case graph::DType::kInt8:
      return DataType::Int(8);
  }
  return DataType::Float(32);
}

Expr Read(const Operand& operand, const std::vector<Var>& index) {
  if (operand.scalar.defined()) return operand.scalar;
  const auto& s = operand.shape;
  std::vector<Expr> in_index;
  size_t offset = index.size() - s.size();
  for (size_t d = 0; d < s.size(); ++d)
    in_index.push_back(s[d] == 1 ? I(0) : Expr(index[d + offset]));
  return operand.tensor(in_index);
}

}  // namespace ops
}  // namespace tessera
