// The data-movement family: Transpose, Slice, Split, Concat, Pad and Gather. Transpose, Slice and
// Concat join plain groups (injective; Concat through its first input, so ShuffleNet's concat and
// channel shuffle are one kernel); the others move elements too, but run as kernels of their own.
#include "compiler/ops/movement.h"

#include <algorithm>

#include "compiler/graph/shape.h"
#include "compiler/ir/op.h"
#include "compiler/ops/compute_util.h"
#include "compiler/ops/evaluate_util.h"
#include "compiler/ops/families.h"
#include "compiler/ops/infer_util.h"
#include "compiler/support/error.h"

namespace tessera {
namespace ops {
namespace {

using graph::Graph;
using graph::Node;
using graph::Value;
using ir::DataType;
using ir::Expr;
using ir::Var;

void InferTranspose(Graph& g, const Node& n) {
  const Value& x = In(g, n, 0);
  std::vector<int64_t> perm = TransposePerm(n, x.shape.size());
  TESSERA_USER_CHECK(perm.size() == x.shape.size()) << NodeWhere(n) << ": perm size";
  std::vector<int64_t> out;
  for (int64_t p : perm) out.push_back(x.shape.at(static_cast<size_t>(p)));
  SetOutput(g, n, 0, x.dtype, out);
}

// `form` transposed by `perm` as its constant's floats are (`source`: the input element of each
// output element): the integers moved alike, a per-axis scale along the axis's new position.
std::shared_ptr<const graph::QuantizedForm> TransposedForm(
    const graph::QuantizedForm& form, const std::vector<int64_t>& perm,
    const std::function<int64_t(int64_t)>& source) {
  auto values = std::make_shared<graph::TensorData>(*form.values);
  for (size_t d = 0; d < perm.size(); ++d) values->shape[d] = form.values->shape[perm[d]];
  for (int64_t i = 0; i < values->NumElements(); ++i) values->Set(i, form.values->At(source(i)));
  auto out = std::make_shared<graph::QuantizedForm>(form);
  out->values = values;
  out->axis = std::find(perm.begin(), perm.end(), form.axis) - perm.begin();
  return out;
}

std::vector<Data> EvaluateTranspose(const Graph& g, const Node& n) {
  const Value& x = Input(g, n, 0);
  const std::vector<int64_t>& out_shape = g.values[n.outputs[0]].shape;
  std::vector<int64_t> perm = TransposePerm(n, x.shape.size());
  std::vector<int64_t> os = Strides(out_shape), is = Strides(x.shape);
  auto source = [&](int64_t i) {
    int64_t index = 0;
    for (size_t d = 0; d < perm.size(); ++d) index += (i / os[d] % out_shape[d]) * is[perm[d]];
    return index;
  };
  Data out = Gathered(g, n, source);
  // A transposed weight keeps the integers it was dequantized from (the int8 templates read
  // them): PyTorch exports a quantized linear layer as MatMul(x, Transpose(DequantizeLinear(W))).
  if (x.data->quantized) out->quantized = TransposedForm(*x.data->quantized, perm, source);
  return One(out);
}

void InferSlice(Graph& g, const Node& n) {
  SetOutput(g, n, 0, In(g, n, 0).dtype, ParseSlice(g, n).shape);
}

std::vector<Data> EvaluateSlice(const Graph& g, const Node& n) {
  const Value& x = Input(g, n, 0);
  const std::vector<int64_t>& out_shape = g.values[n.outputs[0]].shape;
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const SliceWindow w = ParseSlice(g, n);
  std::vector<int64_t> os = Strides(out_shape), is = Strides(x.shape);
  return One(Gathered(g, n, [&](int64_t i) {
    int64_t index = 0;
    for (int64_t d = 0; d < rank; ++d) {
      index += (w.start[d] + (i / os[d] % out_shape[d]) * w.step[d]) * is[d];
    }
    return index;
  }));
}

void InferSplit(Graph& g, const Node& n) {
  const Value& x = In(g, n, 0);
  int64_t axis =
      graph::NormalizeAxis(n.Int("axis", 0), static_cast<int64_t>(x.shape.size()), NodeWhere(n));
  std::vector<int64_t> split = HasInput(n, 1) ? ConstInts(g, n, 1, "split") : n.Ints("split");
  int64_t parts = static_cast<int64_t>(n.outputs.size());
  if (split.empty()) {
    TESSERA_USER_CHECK(x.shape[axis] % parts == 0)
        << NodeWhere(n) << ": " << x.shape[axis] << " does not split in " << parts;
    split.assign(static_cast<size_t>(parts), x.shape[axis] / parts);
  }
  int64_t total = 0;
  for (int64_t s : split) total += s;
  TESSERA_USER_CHECK(total == x.shape[axis] && split.size() == static_cast<size_t>(parts))
      << NodeWhere(n) << ": split sizes do not add up to " << x.shape[axis];
  for (size_t i = 0; i < split.size(); ++i) {
    std::vector<int64_t> s = x.shape;
    s[axis] = split[i];
    SetOutput(g, n, i, x.dtype, s);
  }
}

void InferConcat(Graph& g, const Node& n) {
  const Value& first = In(g, n, 0);
  int64_t rank = static_cast<int64_t>(first.shape.size());
  int64_t axis = graph::NormalizeAxis(n.Int("axis", 0), rank, NodeWhere(n));
  std::vector<int64_t> out = first.shape;
  out[axis] = 0;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const Value& v = In(g, n, i);
    bool same = v.shape.size() == first.shape.size();
    for (int64_t d = 0; same && d < rank; ++d) same = d == axis || v.shape[d] == first.shape[d];
    TESSERA_USER_CHECK(same && v.dtype == first.dtype)
        << NodeWhere(n) << ": input '" << v.name << "' " << graph::ShapeString(v.shape)
        << " does not match '" << first.name << "' " << graph::ShapeString(first.shape)
        << " outside axis " << axis;
    out[axis] += v.shape[axis];
  }
  SetOutput(g, n, 0, first.dtype, out);
}

std::vector<Data> EvaluateConcat(const Graph& g, const Node& n) {
  Data out = OutputData(g, n);
  int64_t rank = static_cast<int64_t>(out->shape.size());
  int64_t axis = graph::NormalizeAxis(n.Int("axis", 0), rank, n.name);
  int64_t inner = 1, outer = 1;
  for (int64_t d = axis + 1; d < rank; ++d) inner *= out->shape[d];
  for (int64_t d = 0; d < axis; ++d) outer *= out->shape[d];
  int64_t offset = 0;
  for (size_t a = 0; a < n.inputs.size(); ++a) {
    const graph::TensorData& in = *Input(g, n, a).data;
    int64_t dim = in.shape[axis];
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t j = 0; j < dim * inner; ++j) {
        out->Set((o * out->shape[axis] + offset) * inner + j, in.At(o * dim * inner + j));
      }
    }
    offset += dim;
  }
  return One(out);
}

std::string CheckPad(const Node& node) {
  if (node.String("mode", "constant") != "constant") {
    return "mode=" + node.String("mode", "") + " is not supported (constant)";
  }
  return "";
}

void InferPad(Graph& g, const Node& n) {
  const Value& x = In(g, n, 0);
  std::vector<int64_t> pads = ConstInts(g, n, 1, "pads");
  TESSERA_USER_CHECK(pads.size() == 2 * x.shape.size())
      << NodeWhere(n) << ": " << pads.size() << " pads for a rank-" << x.shape.size() << " input";
  std::vector<int64_t> out = x.shape;
  for (size_t i = 0; i < out.size(); ++i) out[i] += pads[i] + pads[i + out.size()];
  SetOutput(g, n, 0, x.dtype, out);
}

void InferGather(Graph& g, const Node& n) {
  const Value& x = In(g, n, 0);
  const Value& idx = In(g, n, 1);
  int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = graph::NormalizeAxis(n.Int("axis", 0), rank, NodeWhere(n));
  std::vector<int64_t> out(x.shape.begin(), x.shape.begin() + axis);
  out.insert(out.end(), idx.shape.begin(), idx.shape.end());
  out.insert(out.end(), x.shape.begin() + axis + 1, x.shape.end());
  SetOutput(g, n, 0, x.dtype, out);
}

std::vector<Data> EvaluateGather(const Graph& g, const Node& n) {
  const Value& x = Input(g, n, 0);
  const graph::TensorData& idx = *Input(g, n, 1).data;
  int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = graph::NormalizeAxis(n.Int("axis", 0), rank, n.name);
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < rank; ++d) inner *= x.shape[d];
  int64_t count = idx.NumElements(), dim = x.shape[axis];
  return One(Gathered(g, n, [=, &idx](int64_t i) {
    int64_t in_i = i % inner, j = i / inner % count, o = i / inner / count;
    int64_t k = static_cast<int64_t>(idx.At(j));
    if (k < 0) k += dim;
    return (o * dim + k) * inner + in_i;
  }));
}

te::Tensor ComputeTranspose(const Graph& g, const Node& node, const std::vector<Operand>& in,
                            size_t output) {
  const size_t rank = in[0].shape.size();
  std::vector<int64_t> perm = TransposePerm(node, rank);
  return OutputCompute(g, node, output, [&](const std::vector<Var>& i) {
    std::vector<Expr> index(rank);
    for (size_t d = 0; d < perm.size(); ++d) index[perm[d]] = i[d];
    return in[0].tensor(index);
  });
}

te::Tensor ComputePad(const Graph& g, const Node& node, const std::vector<Operand>& in,
                      size_t output) {
  const Value& out = OutValue(g, node, output);
  const auto& xs = in[0].shape;
  const int64_t rank = static_cast<int64_t>(xs.size());
  std::vector<int64_t> pads = g.values[node.inputs[1]].data->AsInts();
  Expr value = in.size() > 2 && in[2].scalar.defined()
                   ? ir::cast(KernelType(out.dtype), in[2].scalar)
                   : ir::MakeConst(KernelType(out.dtype), 0);
  return OutputCompute(g, node, output, [&](const std::vector<Var>& i) {
    Expr inside;
    std::vector<Expr> index;
    for (int64_t d = 0; d < rank; ++d) {
      Expr p = i[d] - I(pads[d]);
      index.push_back(ir::min(ir::max(p, I(0)), I(xs[d] - 1)));
      Expr in_range = p >= I(0) && p < I(xs[d]);
      inside = inside.defined() ? inside && in_range : in_range;
    }
    return ir::select(inside, in[0].tensor(index), value);
  });
}

te::Tensor ComputeConcat(const Graph& g, const Node& node, const std::vector<Operand>& in,
                         size_t output) {
  const int64_t rank = static_cast<int64_t>(in[0].shape.size());
  int64_t axis = graph::NormalizeAxis(node.Int("axis", 0), rank, NodeWhere(node));
  return OutputCompute(g, node, output, [&](const std::vector<Var>& i) {
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
  });
}

// Output `output` of `node` reading its input from `start` by `step` along every axis.
te::Tensor Strided(const Graph& g, const Node& node, const Operand& x, size_t output,
                   const std::vector<int64_t>& start, const std::vector<int64_t>& step) {
  return OutputCompute(g, node, output, [&](const std::vector<Var>& i) {
    std::vector<Expr> index;
    for (size_t d = 0; d < x.shape.size(); ++d) index.push_back(I(start[d]) + i[d] * I(step[d]));
    return x.tensor(index);
  });
}

te::Tensor ComputeSlice(const Graph& g, const Node& node, const std::vector<Operand>& in,
                        size_t output) {
  const SliceWindow w = ParseSlice(g, node);
  return Strided(g, node, in[0], output, w.start, w.step);
}

te::Tensor ComputeSplit(const Graph& g, const Node& node, const std::vector<Operand>& in,
                        size_t output) {
  const int64_t rank = static_cast<int64_t>(in[0].shape.size());
  std::vector<int64_t> start(static_cast<size_t>(rank), 0), step(static_cast<size_t>(rank), 1);
  int64_t axis = graph::NormalizeAxis(node.Int("axis", 0), rank, NodeWhere(node));
  for (size_t k = 0; k < output; ++k) start[axis] += g.values[node.outputs[k]].shape[axis];
  return Strided(g, node, in[0], output, start, step);
}

te::Tensor ComputeGather(const Graph& g, const Node& node, const std::vector<Operand>& in,
                         size_t output) {
  const auto& xs = in[0].shape;
  const int64_t rank = static_cast<int64_t>(xs.size());
  int64_t axis = graph::NormalizeAxis(node.Int("axis", 0), rank, NodeWhere(node));
  const auto idx_rank = in[1].shape.size();
  return OutputCompute(g, node, output, [&](const std::vector<Var>& i) {
    std::vector<Expr> idx_index(i.begin() + axis, i.begin() + axis + idx_rank);
    Expr k = ir::cast(DataType::Int(32), At(in[1], idx_index));
    k = ir::select(k < I(0), k + I(xs[axis]), k);
    k = ir::min(ir::max(k, I(0)), I(xs[axis] - 1));  // out-of-range indices never read outside
    std::vector<Expr> index(i.begin(), i.begin() + axis);
    index.push_back(k);
    index.insert(index.end(), i.begin() + axis + idx_rank, i.end());
    return in[0].tensor(index);
  });
}

OpDef Def(const std::string& name, Pattern pattern, InferFn infer, EvaluateFn evaluate,
          ComputeFn compute) {
  OpDef def;
  def.name = name;
  def.pattern = pattern;
  def.infer = std::move(infer);
  def.evaluate = std::move(evaluate);
  def.compute = std::move(compute);
  return def;
}

}  // namespace

std::vector<int64_t> TransposePerm(const Node& node, size_t rank) {
  std::vector<int64_t> perm = node.Ints("perm");
  if (perm.empty()) {
    for (size_t i = rank; i-- > 0;) perm.push_back(static_cast<int64_t>(i));
  }
  return perm;
}

SliceWindow ParseSlice(const Graph& g, const Node& node) {
  const Value& x = In(g, node, 0);
  std::vector<int64_t> starts = ConstInts(g, node, 1, "starts");
  std::vector<int64_t> ends = ConstInts(g, node, 2, "ends");
  std::vector<int64_t> axes, steps;
  if (HasInput(node, 3)) axes = ConstInts(g, node, 3, "axes");
  if (HasInput(node, 4)) steps = ConstInts(g, node, 4, "steps");
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  SliceWindow w{std::vector<int64_t>(x.shape.size(), 0), std::vector<int64_t>(x.shape.size(), 1),
                x.shape};
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t axis = axes.empty() ? static_cast<int64_t>(i)
                                : graph::NormalizeAxis(axes[i], rank, NodeWhere(node));
    int64_t step = steps.empty() ? 1 : steps[i];
    TESSERA_USER_CHECK(step != 0) << NodeWhere(node) << ": step 0";
    int64_t dim = x.shape[axis];
    int64_t s = starts[i] < 0 ? starts[i] + dim : starts[i];
    int64_t e = ends[i] < 0 ? ends[i] + dim : ends[i];
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      w.shape[axis] = e > s ? (e - s + step - 1) / step : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      w.shape[axis] = s > e ? (s - e - step - 1) / -step : 0;
    }
    w.start[axis] = s;
    w.step[axis] = step;
  }
  return w;
}

void AddMovementOps(std::vector<OpDef>* defs) {
  defs->push_back(
      Def("Transpose", Pattern::kInjective, InferTranspose, EvaluateTranspose, ComputeTranspose));
  defs->push_back(Def("Slice", Pattern::kInjective, InferSlice, EvaluateSlice, ComputeSlice));
  defs->push_back(Def("Split", Pattern::kOpaque, InferSplit, nullptr, ComputeSplit));
  defs->push_back(Def("Concat", Pattern::kInjective, InferConcat, EvaluateConcat, ComputeConcat));
  OpDef pad = Def("Pad", Pattern::kOpaque, InferPad, nullptr, ComputePad);
  pad.check = CheckPad;
  defs->push_back(pad);
  defs->push_back(Def("Gather", Pattern::kOpaque, InferGather, EvaluateGather, ComputeGather));
}

}  // namespace ops
}  // namespace tessera
