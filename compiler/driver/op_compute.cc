#include "compiler/driver/op_compute.h"

#include <cmath>
#include <functional>
#include <map>

#include "compiler/graph/infer.h"
#include "compiler/ir/op.h"
#include "compiler/support/error.h"
#include "compiler/topi/gpu_schedule.h"

namespace tessera {
namespace driver {
namespace {

using ir::DataType;
using ir::Expr;
using ir::Var;

Expr I(int64_t v) { return ir::IntImm(DataType::Int(32), v); }

std::vector<Expr> ShapeExprs(const std::vector<int64_t>& shape) {
  std::vector<Expr> out;
  for (int64_t d : shape) out.push_back(I(d));
  return out;
}

std::string Where(const graph::Node& node) { return "node '" + node.name + "' (" + node.op + ")"; }

const graph::Value& OutValue(const graph::Graph& g, const graph::Node& node, size_t i = 0) {
  return g.values[node.outputs[i]];
}

// Element of a tensor operand at explicit indices (scalars ignore them).
Expr At(const Operand& o, const std::vector<Expr>& index) {
  if (o.scalar.defined()) return o.scalar;
  return o.tensor(index);
}

Expr Unary(const std::string& op, const graph::Node& node, const std::vector<Operand>& in, Expr x) {
  if (op == "Relu") return ir::max(x, ir::const_like(x, 0));
  if (op == "Sigmoid") return ir::sigmoid(x);
  if (op == "Tanh") return ir::tanh(x);
  if (op == "Erf") return ir::erf(x);
  if (op == "Sqrt") return ir::sqrt(x);
  if (op == "Exp") return ir::exp(x);
  if (op == "Log") return ir::log(x);
  if (op == "Neg") return -x;
  if (op == "Abs") return ir::abs(x);
  if (op == "Floor") return ir::floor(x);
  if (op == "Ceil") return ir::ceil(x);
  if (op == "Reciprocal") return ir::const_like(x, 1) / x;
  if (op == "Identity" || op == "Dropout") return x;
  if (op == "Gelu") {
    return x * ir::const_like(x, 0.5) *
           (ir::const_like(x, 1) + ir::erf(x * ir::const_like(x, M_SQRT1_2)));
  }
  if (op == "Clip") {
    auto bound = [&](size_t i, const char* attr, double fallback) -> Expr {
      if (i < in.size() && (in[i].scalar.defined() || in[i].tensor.defined())) {
        TESSERA_USER_CHECK(in[i].scalar.defined())
            << Where(node) << ": Clip bounds must be constants";
        return ir::cast(x.dtype(), in[i].scalar);
      }
      return node.Has(attr) ? ir::const_like(x, node.Float(attr, fallback)) : Expr();
    };
    Expr lo = bound(1, "min", 0), hi = bound(2, "max", 0);
    if (lo.defined()) x = ir::max(x, lo);
    if (hi.defined()) x = ir::min(x, hi);
    return x;
  }
  TESSERA_INTERNAL_ERROR() << "no compute for unary " << op;
  return x;
}

Expr Binary(const std::string& op, Expr a, Expr b, const Operand& rhs) {
  if (op == "Add") return a + b;
  if (op == "Sub") return a - b;
  if (op == "Mul") return a * b;
  if (op == "Div") return a.dtype().is_float() ? a / b : ir::truncdiv(a, b);
  if (op == "Max") return ir::max(a, b);
  if (op == "Min") return ir::min(a, b);
  if (op == "Equal") return ir::cast(DataType::UInt(8), a == b);
  if (op == "Less") return ir::cast(DataType::UInt(8), a < b);
  if (op == "Greater") return ir::cast(DataType::UInt(8), a > b);
  if (op == "Pow") {
    if (const auto* f = rhs.scalar.as<ir::FloatImmNode>()) {
      if (f->value == 2) return a * a;
      if (f->value == 3) return a * a * a;
      if (f->value == 0.5) return ir::sqrt(a);
      if (f->value == 1) return a;
    }
    return ir::pow(a, ir::cast(a.dtype(), b));
  }
  TESSERA_INTERNAL_ERROR() << "no compute for binary " << op;
  return a;
}

te::Tensor Elementwise(const graph::Graph& g, const graph::Node& node,
                       const std::vector<Operand>& in) {
  const graph::Value& out = OutValue(g, node);
  return te::compute(
      ShapeExprs(out.shape),
      [&](const std::vector<Var>& i) -> Expr {
        const std::string& op = node.op;
        if (op == "Where") {
          return ir::select(Read(in[0], i) != ir::const_like(Read(in[0], i), 0), Read(in[1], i),
                            Read(in[2], i));
        }
        if (op == "Cast") {
          Expr x = Read(in[0], i);
          if (out.dtype == graph::DType::kBool) {
            return ir::cast(DataType::UInt(8), x != ir::const_like(x, 0));
          }
          return ir::cast(KernelType(out.dtype), x);
        }
        if (in.size() >= 2 && graph::IsElementwise(op) && op != "Clip") {
          Expr acc = Read(in[0], i);
          for (size_t k = 1; k < in.size(); ++k) {
            Expr b = Read(in[k], i);
            if (b.dtype() != acc.dtype() && op != "Pow") b = ir::cast(acc.dtype(), b);
            acc = Binary(op, acc, b, in[k]);
          }
          return acc;
        }
        return Unary(op, node, in, Read(in[0], i));
      },
      node.name);
}

// A window's input position along one axis, and whether it lies inside the input.
struct Tap {
  Expr pos, inside;
};

Tap WindowTap(const Expr& out, const Expr& k, int64_t stride, int64_t pad, int64_t dilation,
              int64_t size) {
  Expr pos = out * I(stride) + k * I(dilation) - I(pad);
  return {pos, pos >= I(0) && pos < I(size)};
}

te::Tensor Conv(const graph::Graph& g, const graph::Node& node, const std::vector<Operand>& in) {
  const auto& xs = in[0].shape;
  const auto& ws = in[1].shape;
  const graph::Value& out = OutValue(g, node);
  const int64_t group = node.Int("group", 1), cg = ws[1], kg = ws[0] / group;
  std::vector<int64_t> st = node.Ints("strides", {1, 1}), dil = node.Ints("dilations", {1, 1}),
                       pads = node.Ints("pads", {0, 0, 0, 0});
  ir::IterVar rc = te::reduce_axis(I(cg), "rc"), ry = te::reduce_axis(I(ws[2]), "ry"),
              rx = te::reduce_axis(I(ws[3]), "rx");
  te::Tensor conv = te::compute(
      ShapeExprs(out.shape),
      [&](const std::vector<Var>& i) {
        Tap y = WindowTap(i[2], ry->var, st[0], pads[0], dil[0], xs[2]);
        Tap x = WindowTap(i[3], rx->var, st[1], pads[1], dil[1], xs[3]);
        Expr c = ir::floordiv(i[1], I(kg)) * I(cg) + rc->var;
        Expr v = ir::if_then_else(y.inside && x.inside, in[0].tensor(i[0], c, y.pos, x.pos), 0.0f);
        return te::sum(v * in[1].tensor(i[1], rc, ry, rx), {rc, ry, rx});
      },
      node.name + "_conv", "conv2d");
  if (in.size() < 3 || !in[2].tensor.defined()) return conv;
  return te::compute(
      ShapeExprs(out.shape),
      [&](const std::vector<Var>& i) { return conv(E(i)) + in[2].tensor(i[1]); }, node.name);
}

// A pooling window over axes 2 and 3 of `data` (NCHW, or NCHW[bn]c with the block innermost),
// whose plain input is `xs`; the output has `out_shape` (the same rank).
te::Tensor PoolOver(const graph::Node& node, const te::Tensor& data, const std::vector<int64_t>& xs,
                    const std::vector<int64_t>& out_shape, const std::string& tag) {
  std::vector<int64_t> k = node.Ints("kernel_shape"), st = node.Ints("strides", {1, 1}),
                       pads = node.Ints("pads", {0, 0, 0, 0});
  ir::IterVar ry = te::reduce_axis(I(k[0]), "ry"), rx = te::reduce_axis(I(k[1]), "rx");
  const bool is_max = node.op == "MaxPool";
  // Whether every window holds an input element: then a tap outside, clamped to the nearest
  // row or column, reads an element of its own window, which cannot change a maximum.
  bool windows_inside = true;
  for (int d = 0; d < 2; ++d) {
    const int64_t last_start = (out_shape[2 + d] - 1) * st[d] - pads[d];
    windows_inside = windows_inside && pads[d] <= k[d] - 1 && last_start <= xs[2 + d] - 1;
  }
  te::Tensor pooled = te::compute(
      ShapeExprs(out_shape),
      [&](const std::vector<Var>& i) {
        Tap y = WindowTap(i[2], ry->var, st[0], pads[0], 1, xs[2]);
        Tap x = WindowTap(i[3], rx->var, st[1], pads[1], 1, xs[3]);
        // Clamped reads stay in bounds and taps outside give the reduction's identity: no
        // condition in the loop, so the vectorizer takes it.
        std::vector<Expr> index = E(i);
        index[2] = ir::min(ir::max(y.pos, I(0)), I(xs[2] - 1));
        index[3] = ir::min(ir::max(x.pos, I(0)), I(xs[3] - 1));
        Expr v = data(index);
        if (is_max && windows_inside) return te::max(v, {ry, rx});
        Expr identity = is_max ? ir::min_value(DataType::Float(32)) : Expr(0.0f);
        v = ir::select(y.inside && x.inside, v, identity);
        return is_max ? te::max(v, {ry, rx}) : te::sum(v, {ry, rx});
      },
      node.name + (is_max ? "" : "_sum"), tag);
  if (is_max) return pooled;
  const bool include_pad = node.Int("count_include_pad", 0) != 0;
  return te::compute(
      ShapeExprs(out_shape),
      [&](const std::vector<Var>& i) {
        auto count = [&](const Expr& o, int axis) {
          int64_t size = xs[2 + axis], pad_begin = pads[axis], pad_end = pads[axis + 2];
          Expr start = o * I(st[axis]) - I(pad_begin);
          Expr end = start + I(k[axis]);
          Expr lo = include_pad ? start : ir::max(start, I(0));
          Expr hi = ir::min(end, I(include_pad ? size + pad_end : size));
          return hi - lo;
        };
        return pooled(E(i)) / ir::cast(DataType::Float(32), count(i[2], 0) * count(i[3], 1));
      },
      node.name);
}

te::Tensor Pool(const graph::Graph& g, const graph::Node& node, const std::vector<Operand>& in) {
  return PoolOver(node, in[0].tensor, in[0].shape, OutValue(g, node).shape, "pool");
}

// Sum over `axes` of `in` as a compute with the reduced axes kept or dropped.
te::Tensor ReduceSum(const std::string& name, const Operand& in, std::vector<int64_t> axes,
                     bool keepdims, const std::function<Expr(Expr, const std::vector<Expr>&)>& body,
                     ir::ReduceKind kind = ir::ReduceKind::kSum) {
  const auto& xs = in.shape;
  std::vector<int64_t> out_shape;
  std::vector<ir::IterVar> raxes;
  for (size_t d = 0; d < xs.size(); ++d) {
    bool reduced = std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) != axes.end();
    if (reduced) raxes.push_back(te::reduce_axis(I(xs[d]), "r" + std::to_string(d)));
    if (!reduced) out_shape.push_back(xs[d]);
    if (reduced && keepdims) out_shape.push_back(1);
  }
  return te::compute(
      ShapeExprs(out_shape),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> index;
        size_t next_out = 0, next_r = 0;
        for (size_t d = 0; d < xs.size(); ++d) {
          bool reduced = std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) != axes.end();
          if (reduced) {
            index.push_back(raxes[next_r++]->var);
            if (keepdims) ++next_out;
          } else {
            index.push_back(i[next_out++]);
          }
        }
        Expr v = body(in.tensor(index), index);
        return kind == ir::ReduceKind::kMax ? te::max(v, raxes) : te::sum(v, raxes);
      },
      name, "reduce");
}

// Index of the reduced tensor (keepdims) matching a full index.
std::vector<Expr> KeptIndex(const std::vector<Var>& i, const std::vector<int64_t>& axes) {
  std::vector<Expr> out;
  for (size_t d = 0; d < i.size(); ++d) {
    bool reduced = std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) != axes.end();
    out.push_back(reduced ? I(0) : Expr(i[d]));
  }
  return out;
}

te::Tensor Softmax(const graph::Graph& g, const graph::Node& node, const std::vector<Operand>& in) {
  const auto& xs = in[0].shape;
  int64_t axis =
      graph::NormalizeAxis(node.Int("axis", -1), static_cast<int64_t>(xs.size()), Where(node));
  std::vector<int64_t> axes = {axis};
  auto identity = [](Expr v, const std::vector<Expr>&) { return v; };
  te::Tensor mx = ReduceSum(node.name + "_max", in[0], axes, true, identity, ir::ReduceKind::kMax);
  te::Tensor sum =
      ReduceSum(node.name + "_sum", in[0], axes, true, [&](Expr v, const std::vector<Expr>& idx) {
        std::vector<Expr> k = idx;
        k[axis] = I(0);
        return ir::exp(v - mx(k));
      });
  return te::compute(
      ShapeExprs(xs),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> k = KeptIndex(i, axes);
        return ir::exp(in[0].tensor(E(i)) - mx(k)) / sum(k);
      },
      node.name);
}

te::Tensor LayerNorm(const graph::Graph& g, const graph::Node& node,
                     const std::vector<Operand>& in) {
  const auto& xs = in[0].shape;
  int64_t rank = static_cast<int64_t>(xs.size());
  int64_t axis = graph::NormalizeAxis(node.Int("axis", -1), rank, Where(node));
  std::vector<int64_t> axes;
  int64_t count = 1;
  for (int64_t d = axis; d < rank; ++d) {
    axes.push_back(d);
    count *= xs[d];
  }
  const float inv = 1.0f / static_cast<float>(count);
  auto identity = [](Expr v, const std::vector<Expr>&) { return v; };
  te::Tensor sum = ReduceSum(node.name + "_sum", in[0], axes, true, identity);
  te::Tensor sq =
      ReduceSum(node.name + "_sqsum", in[0], axes, true, [&](Expr v, const std::vector<Expr>& idx) {
        std::vector<Expr> k = idx;
        for (int64_t a : axes) k[a] = I(0);
        Expr d = v - sum(k) * inv;
        return d * d;
      });
  const float eps = static_cast<float>(node.Float("epsilon", 1e-5));
  return te::compute(
      ShapeExprs(xs),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> k = KeptIndex(i, axes);
        Expr norm = (in[0].tensor(E(i)) - sum(k) * inv) / ir::sqrt(sq(k) * inv + eps);
        std::vector<Var> tail(i.begin() + axis, i.end());
        Expr v = norm * Read(in[1], tail);
        if (in.size() > 2 && (in[2].tensor.defined() || in[2].scalar.defined())) {
          v = v + Read(in[2], tail);
        }
        return v;
      },
      node.name);
}

te::Tensor MatMul(const graph::Graph& g, const graph::Node& node, const std::vector<Operand>& in) {
  std::vector<int64_t> as = in[0].shape, bs = in[1].shape;
  const graph::Value& out = OutValue(g, node);
  bool gemm = node.op == "Gemm";
  bool ta = gemm && node.Int("transA", 0), tb = gemm && node.Int("transB", 0);
  int64_t k = ta ? as[as.size() - 2] : as.back();
  ir::IterVar rk = te::reduce_axis(I(k), "rk");
  const int64_t orank = static_cast<int64_t>(out.shape.size());
  te::Tensor prod = te::compute(
      ShapeExprs(out.shape),
      [&](const std::vector<Var>& i) {
        // Batch dimensions broadcast like numpy; a 1-D operand has no row (column) index.
        const int64_t a_rows = as.size() > 1, b_cols = bs.size() > 1;
        const int64_t batch_rank = orank - a_rows - b_cols;
        auto operand_index = [&](const std::vector<int64_t>& s, bool is_a, bool trans) {
          int64_t rank = static_cast<int64_t>(s.size());
          if (rank == 1) return std::vector<Expr>{Expr(rk->var)};
          std::vector<Expr> idx;
          for (int64_t d = 0; d < rank - 2; ++d) {
            idx.push_back(s[d] == 1 ? I(0) : Expr(i[batch_rank - (rank - 2) + d]));
          }
          Expr outer = is_a ? Expr(i[batch_rank]) : Expr(i[orank - 1]);
          // A is [m, k] ([k, m] transposed), B is [k, n] ([n, k] transposed).
          bool outer_first = is_a != trans;
          idx.push_back(outer_first ? outer : Expr(rk->var));
          idx.push_back(outer_first ? Expr(rk->var) : outer);
          return idx;
        };
        return te::sum(
            in[0].tensor(operand_index(as, true, ta)) * in[1].tensor(operand_index(bs, false, tb)),
            {rk});
      },
      node.name + "_matmul", "matmul");
  if (!gemm) return prod;
  const float alpha = static_cast<float>(node.Float("alpha", 1)),
              beta = static_cast<float>(node.Float("beta", 1));
  return te::compute(
      ShapeExprs(out.shape),
      [&](const std::vector<Var>& i) {
        Expr v = alpha == 1 ? prod(E(i)) : prod(E(i)) * alpha;
        if (in.size() > 2 && (in[2].tensor.defined() || in[2].scalar.defined())) {
          v = v + (beta == 1 ? Read(in[2], i) : Read(in[2], i) * beta);
        }
        return v;
      },
      node.name);
}

// Flat row-major offset of `index` in `shape`.
Expr Flat(const std::vector<Var>& index, const std::vector<int64_t>& shape) {
  Expr flat = I(0);
  for (size_t d = 0; d < shape.size(); ++d) flat = flat * I(shape[d]) + index[d];
  return flat;
}

te::Tensor Reshape(const graph::Graph& g, const graph::Node& node, const std::vector<Operand>& in) {
  const graph::Value& out = OutValue(g, node);
  const auto& xs = in[0].shape;
  return te::compute(
      ShapeExprs(out.shape),
      [&](const std::vector<Var>& i) {
        Expr flat = Flat(i, out.shape);
        std::vector<Expr> index(xs.size());
        for (size_t d = xs.size(); d-- > 0;) {
          index[d] = ir::floormod(flat, I(xs[d]));
          flat = ir::floordiv(flat, I(xs[d]));
        }
        return in[0].tensor(index);
      },
      node.name);
}

te::Tensor Injective(const graph::Graph& g, const graph::Node& node, const std::vector<Operand>& in,
                     size_t output) {
  const graph::Value& out = OutValue(g, node, output);
  const auto& xs = in[0].shape;
  const int64_t rank = static_cast<int64_t>(xs.size());
  const std::string& op = node.op;
  std::function<Expr(const std::vector<Var>&)> body;
  if (op == "Transpose") {
    std::vector<int64_t> perm = node.Ints("perm");
    if (perm.empty()) {
      for (int64_t d = rank; d-- > 0;) perm.push_back(d);
    }
    body = [&, perm](const std::vector<Var>& i) {
      std::vector<Expr> index(static_cast<size_t>(rank));
      for (size_t d = 0; d < perm.size(); ++d) index[perm[d]] = i[d];
      return in[0].tensor(index);
    };
  } else if (op == "Pad") {
    std::vector<int64_t> pads = g.values[node.inputs[1]].data->AsInts();
    Expr value = in.size() > 2 && in[2].scalar.defined()
                     ? ir::cast(KernelType(out.dtype), in[2].scalar)
                     : ir::MakeConst(KernelType(out.dtype), 0);
    body = [&, pads, value](const std::vector<Var>& i) {
      Expr inside;
      std::vector<Expr> index;
      for (int64_t d = 0; d < rank; ++d) {
        Expr p = i[d] - I(pads[d]);
        index.push_back(ir::min(ir::max(p, I(0)), I(xs[d] - 1)));
        Expr in_range = p >= I(0) && p < I(xs[d]);
        inside = inside.defined() ? inside && in_range : in_range;
      }
      return ir::select(inside, in[0].tensor(index), value);
    };
  } else if (op == "Concat") {
    int64_t axis = graph::NormalizeAxis(node.Int("axis", 0), rank, Where(node));
    body = [&, axis](const std::vector<Var>& i) {
      std::vector<int64_t> offsets;
      int64_t offset = 0;
      for (const Operand& o : in) {
        offsets.push_back(offset);
        offset += o.shape[axis];
      }
      Expr v;
      for (size_t k = in.size(); k-- > 0;) {
        std::vector<Expr> index(i.begin(), i.end());
        index[axis] = i[axis] - I(offsets[k]);
        Expr read = in[k].tensor(index);
        v = v.defined() ? ir::if_then_else(i[axis] < I(offsets[k] + in[k].shape[axis]), read, v)
                        : read;
      }
      return v;
    };
  } else if (op == "Slice" || op == "Split") {
    std::vector<int64_t> start(static_cast<size_t>(rank), 0), step(static_cast<size_t>(rank), 1);
    if (op == "Split") {
      int64_t axis = graph::NormalizeAxis(node.Int("axis", 0), rank, Where(node));
      for (size_t k = 0; k < output; ++k) start[axis] += g.values[node.outputs[k]].shape[axis];
    } else {
      auto ints = [&](size_t k) {
        return k < node.inputs.size() && node.inputs[k] >= 0
                   ? g.values[node.inputs[k]].data->AsInts()
                   : std::vector<int64_t>{};
      };
      std::vector<int64_t> starts = ints(1), axes = ints(3), steps = ints(4);
      for (size_t k = 0; k < starts.size(); ++k) {
        int64_t a =
            axes.empty() ? static_cast<int64_t>(k) : graph::NormalizeAxis(axes[k], rank, "");
        int64_t s = steps.empty() ? 1 : steps[k], dim = xs[a];
        int64_t b = starts[k] < 0 ? starts[k] + dim : starts[k];
        start[a] = s > 0 ? std::clamp<int64_t>(b, 0, dim) : std::clamp<int64_t>(b, 0, dim - 1);
        step[a] = s;
      }
    }
    body = [&, start, step](const std::vector<Var>& i) {
      std::vector<Expr> index;
      for (int64_t d = 0; d < rank; ++d) index.push_back(I(start[d]) + i[d] * I(step[d]));
      return in[0].tensor(index);
    };
  } else if (op == "Gather") {
    int64_t axis = graph::NormalizeAxis(node.Int("axis", 0), rank, Where(node));
    const auto idx_rank = in[1].shape.size();
    body = [&, axis, idx_rank](const std::vector<Var>& i) {
      std::vector<Expr> idx_index(i.begin() + axis, i.begin() + axis + idx_rank);
      Expr k = ir::cast(DataType::Int(32), At(in[1], idx_index));
      k = ir::select(k < I(0), k + I(xs[axis]), k);
      k = ir::min(ir::max(k, I(0)), I(xs[axis] - 1));  // out-of-range indices never read outside
      std::vector<Expr> index(i.begin(), i.begin() + axis);
      index.push_back(k);
      index.insert(index.end(), i.begin() + axis + idx_rank, i.end());
      return in[0].tensor(index);
    };
  } else if (op == "Expand") {
    body = [&](const std::vector<Var>& i) { return Read(in[0], i); };
  } else {
    return Reshape(g, node, in);  // Reshape, Flatten, Squeeze, Unsqueeze
  }
  return te::compute(ShapeExprs(out.shape), body,
                     node.name + (output ? "_" + std::to_string(output) : ""));
}

bool IsConstExtent(const ir::IterVar& iv, int64_t* extent) {
  const int64_t* v = ir::AsConstInt(iv->dom.extent);
  if (v) *extent = *v;
  return v != nullptr;
}

// A reduction into an output whose innermost axis is too short to vectorize (softmax's and layer
// norm's row sums and maxima, [rows, 1]) runs one scalar chain per output: LLVM may not reorder
// a float sum, and a scalar exp is one libm call. Factored instead into `lanes` partial results
// (stage `t.rf`, computed per output element, vectorized across the lanes), which `t` then
// combines: softmax over BERT's 12x128x128 scores took 1.2-1.9 ms, mostly scalar expf calls.
void VectorizeReduction(te::Schedule& s, const te::Tensor& t, size_t rank) {
  const auto* compute = static_cast<const te::ComputeOpNode*>(t.op().get());
  int64_t last = 1, extent = 0;
  IsConstExtent(compute->axis[rank - 1], &last);
  if (last >= 4 || compute->reduce_axis.size() != 1 ||
      !IsConstExtent(compute->reduce_axis[0], &extent)) {
    return;
  }
  const int64_t lanes = extent % 16 == 0 ? 16 : extent % 8 == 0 ? 8 : 0;
  if (lanes == 0 || extent < 2 * lanes) return;
  te::Stage stage = s[t];
  auto [ko, ki] = stage.split(stage.reduce_axis(0), I(lanes));
  te::Tensor partial = s.rfactor(t, ki, static_cast<int>(rank));
  te::Stage p = s[partial];
  std::vector<ir::IterVar> order;
  for (size_t d = 0; d < rank; ++d) order.push_back(p.axis(d));
  order.push_back(p.reduce_axis(0));
  order.push_back(p.axis(rank));
  p.reorder(order);
  p.vectorize(p.axis(rank));
  p.compute_at(stage, stage.axis(rank - 1));
}

void ScheduleStage(te::Schedule& s, const te::Tensor& t) {
  te::Stage stage = s[t];
  const auto* op = t.op().get();
  const auto* compute = static_cast<const te::ComputeOpNode*>(op);
  const size_t rank = compute->axis.size();
  if (rank == 0) return;
  // The work of the loop nest: its outputs times the reduction's length.
  int64_t total = 1;
  for (const auto& iv : compute->axis) {
    int64_t e = 1;
    IsConstExtent(iv, &e);
    total *= e;
  }
  for (const auto& iv : compute->reduce_axis) {
    int64_t e = 1;
    IsConstExtent(iv, &e);
    total *= e;
  }
  VectorizeReduction(s, t, rank);
  int64_t last = 1;
  IsConstExtent(compute->axis[rank - 1], &last);
  ir::IterVar inner_most = stage.axis(rank - 1);
  ir::IterVar outer_of_last = inner_most;
  bool vectorized = false;
  // Pooling windows read the input through clamped (and, with a stride, strided) indices, which
  // are no ramp: vectorizing their output axis here makes every tap a gather (9 vgatherdps per
  // 8 outputs of a 3x3 MaxPool, 0.66 ms for ResNet-18's). Left serial, LLVM's loop vectorizer
  // takes the loop itself and reads the stride-2 taps with wide loads and shuffles (0.24 ms).
  const bool window_reads = compute->tag == "pool";  // "pool_NCHWc" reads whole blocks
  if (last >= 4 && !window_reads) {
    int64_t factor = last % 16 == 0 ? 16 : last % 8 == 0 ? 8 : last % 4 == 0 ? 4 : 8;
    // A blocked pool's taps all read the same pixel of a channel block: the whole block as the
    // vector shares one tap's index arithmetic among all its lanes.
    if (compute->tag == "pool_NCHWc" && last <= 64 && last % 16 == 0) factor = last;
    auto [lo, li] = stage.split(inner_most, I(factor));
    outer_of_last = lo;
    std::vector<ir::IterVar> order = {lo};
    for (size_t r = 0; r < compute->reduce_axis.size(); ++r) order.push_back(stage.reduce_axis(r));
    order.push_back(li);
    stage.reorder(order);
    stage.vectorize(li);
    vectorized = true;
  }
  // One parallel launch costs microseconds: small kernels stay on the calling thread.
  if (total < 4096) return;
  ir::IterVar fused = rank > 1 ? stage.axis(0) : outer_of_last;
  for (size_t d = 1; d + 1 < rank; ++d) fused = stage.fuse(fused, stage.axis(d));
  if (rank > 1 && vectorized) fused = stage.fuse(fused, outer_of_last);
  stage.parallel(fused);
}

}  // namespace

std::vector<Expr> E(const std::vector<Var>& index) {
  return std::vector<Expr>(index.begin(), index.end());
}

ir::DataType KernelType(graph::DType t) {
  switch (t) {
    case graph::DType::kFloat32:
      return DataType::Float(32);
    case graph::DType::kInt64:
      return DataType::Int(64);
    case graph::DType::kInt32:
      return DataType::Int(32);
    case graph::DType::kBool:
      return DataType::UInt(8);
  }
  return DataType::Float(32);
}

Expr Read(const Operand& operand, const std::vector<Var>& index) {
  if (operand.scalar.defined()) return operand.scalar;
  const auto& s = operand.shape;
  std::vector<Expr> in_index;
  size_t offset = index.size() - s.size();
  for (size_t d = 0; d < s.size(); ++d)
    in_index.push_back(s[d] == 1 ? I(0) : Expr(index[d + offset]));
  return operand.tensor(in_index);
}

te::Tensor ComputeNode(const graph::Graph& g, const graph::Node& node,
                       const std::vector<Operand>& inputs, size_t output) {
  const std::string& op = node.op;
  if (graph::IsElementwise(op) || op == "Identity" || op == "Dropout") {
    return Elementwise(g, node, inputs);
  }
  if (op == "Conv") return Conv(g, node, inputs);
  if (op == "MaxPool" || op == "AveragePool") return Pool(g, node, inputs);
  if (op == "GlobalAveragePool") {
    const auto& xs = inputs[0].shape;
    // Summed as [n, c] (the unit axes dropped), so that the schedule vectorizes the channels
    // around the spatial reduction: a channel block's vector is contiguous in the blocked input.
    // With [n, c, 1, 1] every channel summed alone, 49 strided scalar loads each: ResNet-50's
    // took 0.16 ms against ONNX Runtime's 0.06.
    te::Tensor sum = ReduceSum(node.name + "_sum", inputs[0], {2, 3}, false,
                               [](Expr v, const std::vector<Expr>&) { return v; });
    const float inv = 1.0f / static_cast<float>(xs[2] * xs[3]);
    return te::compute(
        ShapeExprs(OutValue(g, node).shape),
        [&](const std::vector<Var>& i) { return sum(i[0], i[1]) * inv; }, node.name);
  }
  if (op == "ReduceMean") {
    const auto& xs = inputs[0].shape;
    std::vector<int64_t> axes = node.Ints("axes");
    int64_t rank = static_cast<int64_t>(xs.size()), count = 1;
    if (axes.empty()) {
      for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
    }
    for (int64_t& a : axes) {
      a = graph::NormalizeAxis(a, rank, Where(node));
      count *= xs[a];
    }
    te::Tensor sum = ReduceSum(node.name + "_sum", inputs[0], axes, node.Int("keepdims", 1) != 0,
                               [](Expr v, const std::vector<Expr>&) { return v; });
    const float inv = 1.0f / static_cast<float>(count);
    return te::compute(
        ShapeExprs(OutValue(g, node).shape),
        [&](const std::vector<Var>& i) { return sum(E(i)) * inv; }, node.name);
  }
  if (op == "Softmax") return Softmax(g, node, inputs);
  if (op == "LayerNormalization") return LayerNorm(g, node, inputs);
  if (op == "Gemm" || op == "MatMul") return MatMul(g, node, inputs);
  if (op == "Transpose" || op == "Pad" || op == "Concat" || op == "Slice" || op == "Split" ||
      op == "Gather" || op == "Expand" || op == "Reshape" || op == "Flatten" || op == "Squeeze" ||
      op == "Unsqueeze") {
    return Injective(g, node, inputs, output);
  }
  TESSERA_USER_ERROR() << Where(node)
                       << ": has no run-time kernel (its inputs must be compile-time constants)";
  return te::Tensor();
}

te::Tensor PoolNCHWc(const graph::Graph& g, const graph::Node& node, const te::Tensor& blocked,
                     const std::vector<int64_t>& input_shape) {
  const int64_t bn = *ir::AsConstInt(blocked.shape()[4]);
  std::vector<int64_t> out = OutValue(g, node).shape;
  out[1] /= bn;
  out.push_back(bn);
  return PoolOver(node, blocked, input_shape, out, "pool_NCHWc");
}

namespace {

// The schedule of a kernel computing `output`: stages without reductions inlined, the others and
// the output scheduled by `schedule_stage`.
te::Schedule InlineInjective(
    const te::Tensor& output,
    const std::function<void(te::Schedule&, const te::Tensor&)>& schedule_stage) {
  te::Schedule s = te::create_schedule({output});
  for (const te::Operation& op : te::PostOrderOps({output.op()})) {
    if (op->type_name() != std::string("ComputeOp") || op.same_as(output.op())) continue;
    const auto* compute = static_cast<const te::ComputeOpNode*>(op.get());
    if (compute->reduce_axis.empty()) {
      s[op.output()].compute_inline();
    } else {
      schedule_stage(s, op.output());
    }
  }
  schedule_stage(s, output);
  return s;
}

}  // namespace

te::Schedule DefaultSchedule(const te::Tensor& output) {
  return InlineInjective(output, ScheduleStage);
}

te::Schedule DefaultScheduleCUDA(const te::Tensor& output, const std::string& what) {
  TESSERA_USER_CHECK(!output.shape().empty())
      << what << ": the scalar '" << output.name()
      << "' cannot be a GPU kernel's output (no axis to spread over threads)";
  std::vector<te::Tensor> scalars;
  ir::IterVar thread;
  te::Schedule s = InlineInjective(output, [&](te::Schedule& s, const te::Tensor& t) {
    if (t.shape().empty()) {
      scalars.push_back(t);
    } else {
      ir::IterVar tx = topi::ScheduleInjectiveCUDA(s[t]);
      if (t.op().same_as(output.op())) thread = tx;
    }
  });
  // A scalar (a reduction over every axis) has no axis to spread over threads: each thread of
  // the output computes it itself.
  for (const te::Tensor& t : scalars) {
    try {
      s[t].compute_at(s[output], thread);
    } catch (const UserError& e) {
      TESSERA_USER_ERROR() << what << ": the scalar '" << t.name()
                           << "' is not read by the kernel's output directly, which a GPU "
                              "kernel needs ("
                           << e.what() << ")";
    }
  }
  return s;
}

}  // namespace driver
}  // namespace tessera
