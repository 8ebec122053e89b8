#include "compiler/topi/depthwise_conv2d_x86.h"

#include "compiler/ir/op.h"
#include "compiler/support/error.h"
#include "compiler/te/tensor.h"
#include "compiler/topi/index_constant.h"
#include "compiler/topi/zero_pad.h"

namespace tessera {
namespace topi {

using ir::DataType;
using ir::Var;

Conv2dOperands DepthwiseConv2dCompute(const Conv2dShape& s) {
  CheckDepthwiseShape(s, "depthwise_conv2d");
  Conv2dOperands op;
  const int64_t pad = s.pad, stride = s.stride;
  op.data = te::placeholder({I(s.n), I(s.c), I(s.h), I(s.w)}, DataType::Float(32), "data");
  op.kernel = te::placeholder({I(s.c), I(1), I(s.r), I(s.s)}, DataType::Float(32), "kernel");
  op.padded = ZeroPadRowsCols(op.data, {I(s.n), I(s.c), I(s.h + 2 * pad), I(s.w + 2 * pad)}, s.h,
                              s.w, pad, "padded");
  ir::IterVar kh = te::reduce_axis(I(s.r), "kh");
  ir::IterVar kw = te::reduce_axis(I(s.s), "kw");
  op.out = te::compute(
      {I(s.n), I(s.c), I(s.oh()), I(s.ow())},
      [&](Var n, Var c, Var y, Var x) {
        return te::sum(
            op.padded(n, c, y * I(stride) + kh, x * I(stride) + kw) * op.kernel(c, 0, kh, kw),
            {kh, kw});
      },
      "output", "depthwise_conv2d");
  return op;
}

double DepthwiseConv2dFlops(const Conv2dShape& s) {
  return 2.0 * s.n * s.c * s.oh() * s.ow() * s.r * s.s;
}

void CheckDepthwiseShape(const Conv2dShape& s, const std::string& what) {
  TESSERA_USER_CHECK(s.n > 0 && s.c > 0 && s.h > 0 && s.w > 0 && s.r > 0 && s.s > 0)
      << what << ": dimensions must be positive";
  TESSERA_USER_CHECK(s.k == s.c) << what << ": output channels (" << s.k
                                 << ") must equal input channels (" << s.c << ")";
  TESSERA_USER_CHECK(s.stride > 0 && s.pad >= 0 && s.h + 2 * s.pad >= s.r && s.w + 2 * s.pad >= s.s)
      << what << ": bad stride/padding or a kernel larger than the padded input";
}

space::ConfigSpace DepthwiseConv2dX86Space(const Conv2dShape& shape) {
  CheckDepthwiseShape(shape, "depthwise_conv2d");
  space::ConfigSpace sp;
  sp.DefineSplit("tile_oh", shape.oh(), {space::SplitPolicy::kFactors, 2, 16});
  sp.DefineSplit("tile_ow", shape.ow(), {space::SplitPolicy::kFactors, 2, 32});
  sp.DefineKnob("pad_inline", {0, 1});
  sp.FallbackSplit("tile_oh", {-1, 2});
  sp.FallbackSplit("tile_ow", {-1, 8});
  return sp;
}

ScheduledOp DepthwiseConv2dX86(const Conv2dShape& shape, const space::ConfigEntity& config) {
  CheckDepthwiseShape(shape, "depthwise_conv2d");
  int64_t th = config.Split("tile_oh")[1], tw = config.Split("tile_ow")[1];
  TESSERA_USER_CHECK(shape.oh() % th == 0 && shape.ow() % tw == 0)
      << "depthwise_conv2d.x86: config " << config.ToString() << " does not tile the shape";
  Conv2dOperands op = DepthwiseConv2dCompute(shape);
  te::Schedule s = te::create_schedule({op.out});
  if (config.Value("pad_inline")) {
    s[op.padded].compute_inline();
  } else {
    te::Stage p = s[op.padded];
    p.parallel(p.fuse(p.axis(0), p.axis(1)));
  }
  te::Tensor cc = s.cache_write(op.out, "local");
  te::Stage out = s[op.out];
  auto [yo, yi] = out.split(out.axis(2), I(th));
  auto [xo, xi] = out.split(out.axis(3), I(tw));
  out.reorder({out.axis(0), out.axis(1), yo, xo, yi, xi});
  out.parallel(out.fuse(out.axis(0), out.axis(1)));
  out.vectorize(xi);
  te::Stage acc = s[cc];
  acc.compute_at(out, xo);
  ir::IterVar acc_y = acc.axis(2), acc_x = acc.axis(3);
  acc.reorder({acc.reduce_axis(0), acc.reduce_axis(1), acc_y, acc_x});
  acc.unroll(acc_y);
  acc.vectorize(acc_x);
  return {s, {op.data, op.kernel, op.out}, DepthwiseConv2dFlops(shape)};
}

ScheduledOp DepthwiseConv2dDefault(const Conv2dShape& shape) {
  CheckDepthwiseShape(shape, "depthwise_conv2d");
  Conv2dOperands op = DepthwiseConv2dCompute(shape);
  return {te::create_schedule({op.out}), {op.data, op.kernel, op.out}, DepthwiseConv2dFlops(shape)};
}

}  // namespace topi
}  // namespace tessera
