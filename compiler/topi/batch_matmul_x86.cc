#include "compiler/topi/batch_matmul_x86.h"

#include "compiler/ir/op.h"
#include "compiler/support/error.h"
#include "compiler/te/tensor.h"
#include "compiler/topi/index_constant.h"

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

}  // namespace

space::ConfigSpace BatchMatmulX86Space(const BatchMatmulShape& shape) {
  CheckShape(shape);
  space::ConfigSpace s;
  s.DefineSplit("tile_y", shape.m, {space::SplitPolicy::kFactors, 2, 32});
  s.DefineSplit("tile_x", shape.n, {space::SplitPolicy::kFactors, 2, 32});
  s.DefineSplit("tile_k", shape.k, {space::SplitPolicy::kFactors, 2, 64});
  s.FallbackSplit("tile_y", {-1, 4});
  s.FallbackSplit("tile_x", {-1, 16});
  s.FallbackSplit("tile_k", {-1, 4});
  return s;
}

ScheduledOp BatchMatmulX86(const BatchMatmulShape& shape, const space::ConfigEntity& config) {
  CheckShape(shape);
  int64_t ty = config.Split("tile_y")[1], tx = config.Split("tile_x")[1];
  int64_t tk = config.Split("tile_k")[1];
  TESSERA_USER_CHECK(shape.m % ty == 0 && shape.n % tx == 0 && shape.k % tk == 0)
      << "batch_matmul.x86: config " << config.ToString() << " does not tile the shape";
  Operands op = Compute(shape);
  te::Schedule s = te::create_schedule({op.c});
  te::Tensor cc = s.cache_write(op.c, "local");
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
