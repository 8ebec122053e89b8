#include "compiler/topi/nchwc_layout.h"

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

void CheckBlock(const char* what, int64_t channels, int64_t bn) {
  TESSERA_USER_CHECK(channels > 0 && bn > 0 && channels % bn == 0)
      << what << ": block of " << bn << " channels does not divide " << channels << " channels";
}

void CheckPositive(const char* what, std::initializer_list<int64_t> dims) {
  for (int64_t d : dims) TESSERA_USER_CHECK(d > 0) << what << ": dimensions must be positive";
}

}  // namespace

ScheduledOp PackNCHWc(int64_t n, int64_t c, int64_t h, int64_t w, int64_t bn) {
  CheckPositive("pack NCHW to NCHWc", {n, c, h, w});
  CheckBlock("pack NCHW to NCHWc", c, bn);
  te::Tensor plain = te::placeholder({I(n), I(c), I(h), I(w)}, DataType::Float(32), "plain");
  te::Tensor blocked = te::compute(
      {I(n), I(c / bn), I(h), I(w), I(bn)},
      [&](const std::vector<Var>& i) { return plain(i[0], i[1] * I(bn) + i[4], i[2], i[3]); },
      "blocked");
  te::Schedule s = te::create_schedule({blocked});
  te::Stage st = s[blocked];
  st.parallel(st.fuse(st.fuse(st.axis(0), st.axis(1)), st.axis(2)));
  return {s, {plain, blocked}, 0};
}

ScheduledOp UnpackNCHWc(int64_t n, int64_t c, int64_t h, int64_t w, int64_t bn) {
  CheckPositive("unpack NCHWc to NCHW", {n, c, h, w});
  CheckBlock("unpack NCHWc to NCHW", c, bn);
  te::Tensor blocked =
      te::placeholder({I(n), I(c / bn), I(h), I(w), I(bn)}, DataType::Float(32), "blocked");
  te::Tensor plain = te::compute(
      {I(n), I(c), I(h), I(w)},
      [&](Var b, Var ch, Var y, Var x) {
        return blocked(b, ir::floordiv(ch, I(bn)), y, x, ir::floormod(ch, I(bn)));
      },
      "plain");
  te::Schedule s = te::create_schedule({plain});
  te::Stage st = s[plain];
  st.parallel(st.fuse(st.axis(0), st.axis(1)));
  return {s, {blocked, plain}, 0};
}

ScheduledOp RepackNCHWc(int64_t n, int64_t c, int64_t h, int64_t w, int64_t from_bn,
                        int64_t to_bn) {
  CheckPositive("repack NCHWc", {n, c, h, w});
  CheckBlock("repack NCHWc (from)", c, from_bn);
  CheckBlock("repack NCHWc (to)", c, to_bn);
  te::Tensor from =
      te::placeholder({I(n), I(c / from_bn), I(h), I(w), I(from_bn)}, DataType::Float(32), "from");
  te::Tensor to = te::compute(
      {I(n), I(c / to_bn), I(h), I(w), I(to_bn)},
      [&](const std::vector<Var>& i) {
        Expr ch = i[1] * I(to_bn) + i[4];
        return from(i[0], ir::floordiv(ch, I(from_bn)), i[2], i[3], ir::floormod(ch, I(from_bn)));
      },
      "to");
  te::Schedule s = te::create_schedule({to});
  te::Stage st = s[to];
  st.parallel(st.fuse(st.fuse(st.axis(0), st.axis(1)), st.axis(2)));
  return {s, {from, to}, 0};
}

ScheduledOp PackOIHWio(int64_t k, int64_t c, int64_t r, int64_t s, int64_t ic_bn, int64_t oc_bn) {
  CheckPositive("pack OIHW weights", {k, c, r, s});
  CheckBlock("pack OIHW weights (input channels)", c, ic_bn);
  CheckBlock("pack OIHW weights (output channels)", k, oc_bn);
  te::Tensor kernel = te::placeholder({I(k), I(c), I(r), I(s)}, DataType::Float(32), "kernel");
  te::Tensor packed = te::compute(
      {I(k / oc_bn), I(c / ic_bn), I(r), I(s), I(ic_bn), I(oc_bn)},
      [&](const std::vector<Var>& i) {
        return kernel(i[0] * I(oc_bn) + i[5], i[1] * I(ic_bn) + i[4], i[2], i[3]);
      },
      "packed_kernel");
  te::Schedule sched = te::create_schedule({packed});
  te::Stage st = sched[packed];
  st.parallel(st.fuse(st.axis(0), st.axis(1)));
  return {sched, {kernel, packed}, 0};
}

}  // namespace topi
}  // namespace tessera
