#include "compiler/topi/conv2d_nchw_cuda.h"

#include "compiler/ir/op.h"
#include "compiler/support/error.h"
#include "compiler/te/tensor.h"
#include "compiler/topi/gpu_schedule.h"
#include "compiler/topi/index_constant.h"

namespace tessera {
namespace topi {

namespace {

constexpr int64_t kMaxTile = 4;

void CheckShape(const Conv2dShape& s) {
  TESSERA_USER_CHECK(s.n > 0 && s.c > 0 && s.h > 0 && s.w > 0 && s.k > 0 && s.r > 0 && s.s > 0)
      << "conv2d_nchw.cuda: dimensions must be positive";
  TESSERA_USER_CHECK(s.stride > 0 && s.pad >= 0 && s.h + 2 * s.pad >= s.r && s.w + 2 * s.pad >= s.s)
      << "conv2d_nchw.cuda: bad stride/padding or a kernel larger than the padded input";
}

}  // namespace

space::ConfigSpace Conv2dNCHWCUDASpace(const Conv2dShape& shape) {
  CheckShape(shape);
  space::ConfigSpace s;
  s.DefineSplit("tile_f", shape.k, {space::SplitPolicy::kFactors, 3, kMaxTile});
  s.DefineSplit("tile_y", shape.oh(), {space::SplitPolicy::kFactors, 3, kMaxTile});
  s.DefineSplit("tile_x", shape.ow(), {space::SplitPolicy::kFactors, 3, kMaxTile});
  s.DefineSplit("tile_rc", shape.c, {space::SplitPolicy::kFactors, 2, kMaxTile});
  s.DefineKnob("auto_unroll", {0, 512});
  s.FallbackSplit("tile_f", {-1, 4, 2});
  s.FallbackSplit("tile_y", {-1, 2, 2});
  s.FallbackSplit("tile_x", {-1, 4, 2});
  s.FallbackSplit("tile_rc", {-1, 2});
  return s;
}

ScheduledOp Conv2dNCHWCUDA(const Conv2dShape& shape, const space::ConfigEntity& config) {
  CheckShape(shape);
  using ir::Expr;
  using ir::Var;
  const int64_t pad = shape.pad, stride = shape.stride;
  te::Tensor data = te::placeholder({I(shape.n), I(shape.c), I(shape.h), I(shape.w)},
                                    ir::DataType::Float(32), "data");
  te::Tensor weight = te::placeholder({I(shape.k), I(shape.c), I(shape.r), I(shape.s)},
                                      ir::DataType::Float(32), "W");
  te::Tensor padded = te::compute(
      {I(shape.n), I(shape.c), I(shape.h + 2 * pad), I(shape.w + 2 * pad)},
      [&](Var n, Var c, Var y, Var x) {
        Expr inside = y >= I(pad) && y < I(shape.h + pad) && x >= I(pad) && x < I(shape.w + pad);
        return ir::if_then_else(inside, data(n, c, y - I(pad), x - I(pad)), 0.0f);
      },
      "padded");
  ir::IterVar rc = te::reduce_axis(I(shape.c), "rc");
  ir::IterVar ry = te::reduce_axis(I(shape.r), "ry");
  ir::IterVar rx = te::reduce_axis(I(shape.s), "rx");
  te::Tensor out = te::compute(
      {I(shape.n), I(shape.k), I(shape.oh()), I(shape.ow())},
      [&](Var n, Var k, Var y, Var x) {
        return te::sum(
            padded(n, rc, y * I(stride) + ry, x * I(stride) + rx) * weight(k, rc, ry, rx),
            {rc, ry, rx});
      },
      "out", "conv2d_nchw");

  std::vector<int64_t> tf = config.Split("tile_f"), ty = config.Split("tile_y"),
                       tx = config.Split("tile_x"), trc = config.Split("tile_rc");
  te::Schedule s = te::create_schedule({out});
  te::Tensor ol = s.cache_write(out, "local");
  te::Tensor ds = s.cache_read(padded, "shared", {ol});
  te::Tensor ws = s.cache_read(weight, "shared", {ol});
  s[padded].compute_inline();

  te::Stage o = s[out];
  auto [bf, f_rest] = o.split(o.axis(1), I(tf[1] * tf[2]));
  auto [tf_thread, f_reg] = o.split(f_rest, I(tf[2]));
  auto [by, y_rest] = o.split(o.axis(2), I(ty[1] * ty[2]));
  auto [ty_thread, y_reg] = o.split(y_rest, I(ty[2]));
  auto [bx, x_rest] = o.split(o.axis(3), I(tx[1] * tx[2]));
  auto [tx_thread, x_reg] = o.split(x_rest, I(tx[2]));
  o.reorder({o.axis(0), bf, by, bx, tf_thread, ty_thread, tx_thread, f_reg, y_reg, x_reg});
  ir::IterVar bz = o.fuse(o->leaf_iter_vars[0], bf);
  o.bind(bz, "blockIdx.z");
  o.bind(by, "blockIdx.y");
  o.bind(bx, "blockIdx.x");
  o.bind(tf_thread, "threadIdx.z");
  o.bind(ty_thread, "threadIdx.y");
  o.bind(tx_thread, "threadIdx.x");

  te::Stage acc = s[ol];
  acc.compute_at(o, tx_thread);
  auto [rco, rci] = acc.split(acc.reduce_axis(0), I(trc[1]));
  acc.reorder(
      {rco, acc.reduce_axis(1), acc.reduce_axis(2), rci, acc.axis(1), acc.axis(2), acc.axis(3)});
  if (config.Value("auto_unroll") > 0)
    acc.pragma(rco, "auto_unroll_max_step", I(config.Value("auto_unroll")));
  for (const te::Tensor& t : {ds, ws}) {
    s[t].compute_at(acc, rco);
    CooperativeFetch(s[t], tf[1], ty[1], tx[1], 1);
  }
  double flops = 2.0 * shape.n * shape.k * shape.oh() * shape.ow() * shape.c * shape.r * shape.s;
  return {s, {data, weight, out}, flops};
}

}  // namespace topi
}  // namespace tessera
