#include "compiler/topi/conv2d_nchw_cuda.h"

#include "compiler/topi/gpu_schedule.h"
#include "compiler/topi/index_constant.h"

namespace tessera {
namespace topi {

namespace {

constexpr int64_t kMaxTile = 4;

}  // namespace

space::ConfigSpace Conv2dNCHWCUDASpace(const Conv2dShape& shape) {
  Conv2dNCHWCompute(shape);  // checks the shape
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
  Conv2dOperands op = Conv2dNCHWCompute(shape);
  te::Tensor data = op.data, weight = op.kernel, padded = op.padded, out = op.out;
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
  return {s, {data, weight, out}, Conv2dNCHWFlops(shape)};
}

}  // namespace topi
}  // namespace tessera
