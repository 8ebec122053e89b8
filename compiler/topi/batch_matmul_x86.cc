#include "compiler/topi/batch_matmul_x86.h"

#include "compiler/ir/op.h"
#include "compiler/support/error.h"
#include "compiler/te/tensor.h"
#include "compiler/topi/index_constant.h"
#include "compiler/topi/output_epilogue.h"
#include "compiler/topi/padded_tile.h"

namespace tessera {
namespace topi {
namespace {

using ir::DataType;
using ir::Expr;
using ir::Var;

void CheckShape(const BatchMatmulShape& s) {
  TESSERA_USER_CHECK(s.b > 0 && s.m > 0 && s.n > 0 && s.k > 0)
      << "batch_matmul: dimensions must be positive, got b=" << s.b << " m=" << s.m << " n=" << s.n
      << " k=" << s.k;
}

struct Operands {
  te::Tensor a, b, c;
};

Operands Compute(const BatchMatmulShape& s) {
  te::Tensor a = te::placeholder({I(s.b), I(s.m), I(s.k)}, DataType::Float(32), "A");
  te::Tensor b = te::placeholder({I(s.b), I(s.k), I(s.n)}, DataType::Float(32), "B");
  ir::IterVar k = te::reduce_axis(I(s.k), "k");
  te::Tensor c = te::compute(
      {I(s.b), I(s.m), I(s.n)},
      [&](Var bb, Var y, Var x) { return te::sum(a(bb, y, k) * b(bb, k, x), {k}); }, "C",
      "batch_matmul");
  return {a, b, c};
}

// B with zeros after its last column up to `padded_n` (a vector load of B must not be clamped
// lane by lane).
te::Tensor PadColumns(const BatchMatmulShape& s, const te::Tensor& b, int64_t padded_n) {
  return te::compute(
      {I(s.b), I(s.k), I(padded_n)},
      [&](Var bb, Var k, Var x) {
        Expr value = b(bb, k, ir::min(x, I(s.n - 1)));
        return ir::select(x < I(s.n), value, ir::const_like(value, 0));
      },
      "B_padded", "batch_matmul_pad");
}

// The product on `padded_m` rows of `columns`' columns, the padding rows repeating A's last.
te::Tensor PaddedProduct(const BatchMatmulShape& s, const te::Tensor& a, const te::Tensor& columns,
                         int64_t padded_m, int64_t padded_n) {
  ir::IterVar k = te::reduce_axis(I(s.k), "k");
  return te::compute(
      {I(s.b), I(padded_m), I(padded_n)},
      [&](Var bb, Var y, Var x) {
        return te::sum(a(bb, ClampedRow(y, s.m, padded_m), k) * columns(bb, k, x), {k});
      },
      "C", "batch_matmul");
}

}  // namespace

space::ConfigSpace BatchMatmulX86Space(const BatchMatmulShape& shape) {
  CheckShape(shape);
  space::ConfigSpace s;
  // Rows and columns pad to the register tile inside the kernel (BatchMatmulX86): attention's
  // 197 × 197 scores (ViT) get 4 × 16 tiles instead of one element at a time.
  s.DefineSplit("tile_y", shape.m, {space::SplitPolicy::kPaddedInnermost, 2, 32});
  s.DefineSplit("tile_x", shape.n, {space::SplitPolicy::kPaddedInnermost, 2, 32});
  s.DefineSplit("tile_k", shape.k, {space::SplitPolicy::kFactors, 2, 64});
  s.FallbackSplit("tile_y", {-1, 4});
  s.FallbackSplit("tile_x", {-1, 16});
  s.FallbackSplit("tile_k", {-1, 4});
  return s;
}

space::ConfigSpace BatchMatmulArmSpace(const BatchMatmulShape& shape, const VectorUnit& unit) {
  CheckShape(shape);
  space::ConfigSpace s;
  s.DefineSplit("tile_y", shape.m, {space::SplitPolicy::kPaddedInnermost, 2, 32});
  s.DefineSplit("tile_x", shape.n, {space::SplitPolicy::kPaddedInnermost, 2, 32});
  // The reduction's inner loop in fours where k allows, unrolled: a row's four values of A load
  // as one vector feeding lane-indexed multiply-adds instead of four broadcasts from memory.
  s.DefineSplit("tile_k", shape.k, {space::SplitPolicy::kFactors, 2, 64, 4});
  s.DefineKnob("unroll_k", {1, 0});
  // Two vectors of columns × 8 rows: 16 accumulators beside 8 row vectors of A and 2 of B.
  const int64_t rows = unit.registers >= 8 * 3 + 2 ? 8 : 4;
  s.FallbackSplit("tile_y", {-1, rows});
  s.FallbackSplit("tile_x", {-1, 2 * unit.lanes});
  s.FallbackSplit("tile_k", {-1, 4});
  return s;
}

ScheduledOp BatchMatmulX86(const BatchMatmulShape& shape, const space::ConfigEntity& config) {
  CheckShape(shape);
  int64_t ty = config.Split("tile_y")[1], tx = config.Split("tile_x")[1];
  int64_t tk = config.Split("tile_k")[1];
  TESSERA_USER_CHECK(shape.k % tk == 0)
      << "batch_matmul.x86: config " << config.ToString() << " does not tile the shape";
  const int64_t padded_m = PaddedExtent(shape.m, ty), padded_n = PaddedExtent(shape.n, tx);
  Operands op = Compute(shape);
  te::Tensor product = op.c, columns;
  if (padded_m != shape.m || padded_n != shape.n) {
    columns = padded_n == shape.n ? op.b : PadColumns(shape, op.b, padded_n);
    product = PaddedProduct(shape, op.a, columns, padded_m, padded_n);
    op.c = CropPadded(product, {shape.b, shape.m, shape.n}, "C_cropped", "batch_matmul_crop");
  }
  te::Schedule s = te::create_schedule({op.c});
  if (padded_n != shape.n) s[columns].parallel(s[columns].axis(0));
  te::Tensor cc = LocalAccumulator(s, product, op.c);
  te::Stage out = s[op.c];
  auto [yo, yi] = out.split(out.axis(1), I(ty));
  auto [xo, xi] = out.split(out.axis(2), I(tx));
  out.reorder({out.axis(0), yo, xo, yi, xi});
  out.parallel(out.fuse(out.axis(0), yo));
  out.vectorize(xi);
  te::Stage acc = s[cc];
  acc.compute_at(out, xo);
  ir::IterVar acc_y = acc.axis(1), acc_x = acc.axis(2);
  auto [ko, ki] = acc.split(acc.reduce_axis(0), I(tk));
  acc.reorder({ko, ki, acc_y, acc_x});
  acc.unroll(acc_y);
  acc.vectorize(acc_x);
  if (config.ValueOr("unroll_k", 0)) acc.unroll(ki);
  double flops = 2.0 * shape.b * shape.m * shape.n * shape.k;
  return {s, {op.a, op.b, op.c}, flops};
}

ScheduledOp BatchMatmulDefault(const BatchMatmulShape& shape) {
  CheckShape(shape);
  Operands op = Compute(shape);
  double flops = 2.0 * shape.b * shape.m * shape.n * shape.k;
  return {te::create_schedule({op.c}), {op.a, op.b, op.c}, flops};
}

}  // namespace topi
}  // namespace tessera
