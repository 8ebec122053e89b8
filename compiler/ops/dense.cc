// The matrix-product family: Gemm and MatMul (batched, numpy-style broadcast).
#include "compiler/ops/dense.h"

#include "compiler/graph/shape.h"
#include "compiler/ir/op.h"
#include "compiler/ops/compute_util.h"
#include "compiler/ops/families.h"
#include "compiler/ops/infer_util.h"
#include "compiler/support/error.h"

namespace tessera {
namespace ops {
namespace {

using graph::Graph;
using graph::Node;
using ir::Expr;
using ir::Var;

// Gemm's attributes, with ONNX's defaults.
struct GemmAttrs {
  bool trans_a = false, trans_b = false;
  double alpha = 1, beta = 1;
};

GemmAttrs ParseGemmAttrs(const Node& n) {
  return {n.Int("transA", 0) != 0, n.Int("transB", 0) != 0, n.Float("alpha", 1),
          n.Float("beta", 1)};
}

void InferGemm(Graph& g, const Node& n) {
  std::vector<int64_t> a = In(g, n, 0).shape, b = In(g, n, 1).shape;
  TESSERA_USER_CHECK(a.size() == 2 && b.size() == 2)
      << NodeWhere(n) << ": operands must be 2-D, got " << graph::ShapeString(a) << " and "
      << graph::ShapeString(b);
  const GemmAttrs attrs = ParseGemmAttrs(n);
  if (attrs.trans_a) std::swap(a[0], a[1]);
  if (attrs.trans_b) std::swap(b[0], b[1]);
  TESSERA_USER_CHECK(a[1] == b[0])
      << NodeWhere(n) << ": inner dimensions differ: " << graph::ShapeString(a) << " times "
      << graph::ShapeString(b);
  std::vector<int64_t> out = {a[0], b[1]};
  if (HasInput(n, 2)) graph::BroadcastShapes(out, In(g, n, 2).shape, NodeWhere(n));
  SetOutput(g, n, 0, graph::DType::kFloat32, out);
}

void InferMatMul(Graph& g, const Node& n) {
  SetOutput(g, n, 0, graph::DType::kFloat32,
            MatMulShape(In(g, n, 0).shape, In(g, n, 1).shape, NodeWhere(n)));
}

// Gemm's scaling of the product and addition of its bias.
te::Tensor GemmEpilogue(const Node& node, const te::Tensor& prod, const std::vector<Operand>& in,
                        const std::vector<int64_t>& shape, const GemmAttrs& attrs) {
  const float alpha = static_cast<float>(attrs.alpha), beta = static_cast<float>(attrs.beta);
  return te::compute(
      ShapeExprs(shape),
      [&](const std::vector<Var>& i) {
        Expr v = alpha == 1 ? prod(E(i)) : prod(E(i)) * alpha;
        if (in.size() > 2 && (in[2].tensor.defined() || in[2].scalar.defined())) {
          v = v + (beta == 1 ? Read(in[2], i) : Read(in[2], i) * beta);
        }
        return v;
      },
      node.name);
}

te::Tensor ComputeMatMul(const Graph& g, const Node& node, const std::vector<Operand>& in, size_t) {
  std::vector<int64_t> as = in[0].shape, bs = in[1].shape;
  const graph::Value& out = OutValue(g, node);
  const bool gemm = node.op == "Gemm";
  const GemmAttrs attrs = gemm ? ParseGemmAttrs(node) : GemmAttrs{};
  const bool ta = attrs.trans_a, tb = attrs.trans_b;
  int64_t k = ta ? as[as.size() - 2] : as.back();
  ir::IterVar rk = te::reduce_axis(I(k), "rk");
  te::Tensor prod = te::compute(
      ShapeExprs(out.shape),
      [&](const std::vector<Var>& i) {
        const MatMulIndex index = MatMulOperandIndex(as, bs, i, rk->var, ta, tb);
        return te::sum(in[0].tensor(index.a) * in[1].tensor(index.b), {rk});
      },
      node.name + "_matmul", "matmul");
  if (!gemm) return prod;
  return GemmEpilogue(node, prod, in, out.shape, attrs);
}

}  // namespace

std::vector<int64_t> MatMulShape(std::vector<int64_t> a, std::vector<int64_t> b,
                                 const std::string& where) {
  TESSERA_USER_CHECK(!a.empty() && !b.empty()) << where << ": operands must not be scalars";
  bool a1 = a.size() == 1, b1 = b.size() == 1;
  if (a1) a.insert(a.begin(), 1);
  if (b1) b.push_back(1);
  TESSERA_USER_CHECK(a.back() == b[b.size() - 2])
      << where << ": inner dimensions differ: " << graph::ShapeString(a) << " times "
      << graph::ShapeString(b);
  std::vector<int64_t> out =
      graph::BroadcastShapes(std::vector<int64_t>(a.begin(), a.end() - 2),
                             std::vector<int64_t>(b.begin(), b.end() - 2), where);
  if (!a1) out.push_back(a[a.size() - 2]);
  if (!b1) out.push_back(b.back());
  return out;
}

MatMulIndex MatMulOperandIndex(const std::vector<int64_t>& as, const std::vector<int64_t>& bs,
                               const std::vector<Var>& i, const Expr& k, bool trans_a,
                               bool trans_b) {
  // Batch dimensions broadcast like numpy; a 1-D operand has no row (column) index.
  const int64_t orank = static_cast<int64_t>(i.size());
  const int64_t a_rows = as.size() > 1, b_cols = bs.size() > 1;
  const int64_t batch_rank = orank - a_rows - b_cols;
  auto operand_index = [&](const std::vector<int64_t>& s, bool is_a, bool trans) {
    int64_t rank = static_cast<int64_t>(s.size());
    if (rank == 1) return std::vector<Expr>{k};
    std::vector<Expr> idx;
    for (int64_t d = 0; d < rank - 2; ++d) {
      idx.push_back(s[d] == 1 ? I(0) : Expr(i[batch_rank - (rank - 2) + d]));
    }
    Expr outer = is_a ? Expr(i[batch_rank]) : Expr(i[orank - 1]);
    // A is [m, k] ([k, m] transposed), B is [k, n] ([n, k] transposed).
    bool outer_first = is_a != trans;
    idx.push_back(outer_first ? outer : k);
    idx.push_back(outer_first ? k : outer);
    return idx;
  };
  return {operand_index(as, true, trans_a), operand_index(bs, false, trans_b)};
}

void AddDenseOps(std::vector<OpDef>* defs) {
  OpDef gemm;
  gemm.name = "Gemm";
  gemm.pattern = Pattern::kComplexOutFusable;
  gemm.infer = InferGemm;
  gemm.compute = ComputeMatMul;
  defs->push_back(gemm);
  OpDef matmul;
  matmul.name = "MatMul";
  matmul.pattern = Pattern::kComplexOutFusable;
  matmul.infer = InferMatMul;
  matmul.compute = ComputeMatMul;
  defs->push_back(matmul);
}

}  // namespace ops
}  // namespace tessera
