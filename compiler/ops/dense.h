/// \file
/// The matrix product's shapes and indexing, shared by MatMul, Gemm and the integer products
/// (MatMulInteger, QLinearMatMul).
#ifndef TESSERA_COMPILER_OPS_DENSE_H_
#define TESSERA_COMPILER_OPS_DENSE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/expr.h"

namespace tessera {
namespace ops {

/// The output shape of a numpy-style matrix product of operands shaped `a` and `b` (batch
/// dimensions broadcast; a 1-D operand has no row or column); throws `UserError` beginning with
/// `where` when they do not agree.
std::vector<int64_t> MatMulShape(std::vector<int64_t> a, std::vector<int64_t> b,
                                 const std::string& where);

/// The indices of the two operands' elements a matrix product reads.
struct MatMulIndex {
  std::vector<ir::Expr> a;  ///< into the left operand
  std::vector<ir::Expr> b;  ///< into the right operand
};

/// The elements of operands shaped `as` and `bs` read for output element `i` at reduction index
/// `k`; `trans_a` / `trans_b` for Gemm's transposed operands.
MatMulIndex MatMulOperandIndex(const std::vector<int64_t>& as, const std::vector<int64_t>& bs,
                               const std::vector<ir::Var>& i, const ir::Expr& k,
                               bool trans_a = false, bool trans_b = false);

}  // namespace ops
}  // namespace tessera

#endif  // TESSERA_COMPILER_OPS_DENSE_H_
