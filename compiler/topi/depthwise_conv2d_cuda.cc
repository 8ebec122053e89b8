#include "compiler/topi/depthwise_conv2d_cuda.h"

#include "compiler/support/error.h"
#include "compiler/topi/depthwise_conv2d_x86.h"
#include "compiler/topi/index_constant.h"

namespace tessera {
namespace topi {

space::ConfigSpace DepthwiseConv2dCUDASpace(const Conv2dShape& shape) {
  DepthwiseConv2dCompute(shape);  // checks the shape
  space::ConfigSpace s;
  s.DefineSplit("tile_y", shape.oh(), {space::SplitPolicy::kFactors, 3, 32});
  s.DefineSplit("tile_x", shape.ow(), {space::SplitPolicy::kFactors, 3, 32});
  s.DefineKnob("auto_unroll", {0, 512});
  s.FallbackSplit("tile_y", {-1, 8, 1});
  s.FallbackSplit("tile_x", {-1, 32, 1});
  return s;
}

ScheduledOp DepthwiseConv2dCUDA(const Conv2dShape& shape, const space::ConfigEntity& config) {
  Conv2dOperands op = DepthwiseConv2dCompute(shape);
  std::vector<int64_t> ty = config.Split("tile_y"), tx = config.Split("tile_x");
  TESSERA_USER_CHECK(ty[1] * tx[1] <= 1024)
      << "depthwise_conv2d.cuda: config " << config.ToString() << " asks for " << ty[1] * tx[1]
      << " threads per block (at most 1024)";
  te::Schedule s = te::create_schedule({op.out});
  s[op.padded].compute_inline();
  te::Tensor ol = s.cache_write(op.out, "local");
  te::Stage o = s[op.out];
  auto [by, y_rest] = o.split(o.axis(2), I(ty[1] * ty[2]));
  auto [ty_thread, y_reg] = o.split(y_rest, I(ty[2]));
  auto [bx, x_rest] = o.split(o.axis(3), I(tx[1] * tx[2]));
  auto [tx_thread, x_reg] = o.split(x_rest, I(tx[2]));
  o.reorder({o.axis(0), o.axis(1), by, bx, ty_thread, tx_thread, y_reg, x_reg});
  o.bind(o.fuse(o.axis(0), o.axis(1)), "blockIdx.z");
  o.bind(by, "blockIdx.y");
  o.bind(bx, "blockIdx.x");
  o.bind(ty_thread, "threadIdx.y");
  o.bind(tx_thread, "threadIdx.x");
  te::Stage acc = s[ol];
  acc.compute_at(o, tx_thread);
  acc.reorder({acc.reduce_axis(0), acc.reduce_axis(1), acc.axis(2), acc.axis(3)});
  if (config.Value("auto_unroll") > 0)
    acc.pragma(acc.reduce_axis(0), "auto_unroll_max_step", I(config.Value("auto_unroll")));
  return {s, {op.data, op.kernel, op.out}, DepthwiseConv2dFlops(shape)};
}

}  // namespace topi
}  // namespace tessera
