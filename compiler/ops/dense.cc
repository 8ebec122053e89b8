// The matrix-product family: Gemm and MatMul (batched, numpy-style broadcast).
#include "compiler/graph/shape.h"
#include "compiler/ops/families.h"
#include "compiler/ops/infer_util.h"
#include "compiler/support/error.h"

namespace tessera {
namespace ops {
namespace {

using graph::Graph;
using graph::Node;

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
  std::vector<int64_t> a = In(g, n, 0).shape, b = In(g, n, 1).shape;
  std::string where = NodeWhere(n);
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
  SetOutput(g, n, 0, graph::DType::kFloat32, out);
}

}  // namespace

void AddDenseOps(std::vector<OpDef>* defs) {
  OpDef gemm;
  gemm.name = "Gemm";
  gemm.pattern = Pattern::kComplexOutFusable;
  gemm.infer = InferGemm;
  defs->push_back(gemm);
  OpDef matmul;
  matmul.name = "MatMul";
  matmul.pattern = Pattern::kComplexOutFusable;
  matmul.infer = InferMatMul;
  defs->push_back(matmul);
}

}  // namespace ops
}  // namespace tessera
