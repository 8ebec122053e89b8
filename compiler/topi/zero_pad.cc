#include "compiler/topi/zero_pad.h"

#include "compiler/ir/op.h"
#include "compiler/topi/index_constant.h"

namespace tessera {
namespace topi {

te::Tensor ZeroPadRowsCols(const te::Tensor& data, const std::vector<ir::Expr>& shape, int64_t h,
                           int64_t w, int64_t pad, const std::string& name, ir::Expr fill) {
  return te::compute(
      shape,
      [&](const std::vector<ir::Var>& i) {
        ir::Expr y = i[2], x = i[3];
        ir::Expr inside = y >= I(pad) && y < I(h + pad) && x >= I(pad) && x < I(w + pad);
        std::vector<ir::Expr> at(i.begin(), i.end());
        at[2] = y - I(pad);
        at[3] = x - I(pad);
        ir::Expr value = data(at);
        return ir::if_then_else(inside, value, fill.defined() ? fill : ir::const_like(value, 0));
      },
      name);
}

te::Stage ScheduleParallelPadding(te::Schedule& s, const te::Tensor& padded, bool rows_first) {
  te::Stage p = s[padded];
  if (rows_first) {
    p.reorder({p.axis(0), p.axis(2), p.axis(1), p.axis(3), p.axis(4)});
    p.parallel(p.fuse(p.axis(0), p.axis(2)));
  } else {
    p.parallel(p.fuse(p.fuse(p.axis(0), p.axis(1)), p.axis(2)));
  }
  return p;
}

}  // namespace topi
}  // namespace tessera
