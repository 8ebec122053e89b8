#include "compiler/graph/evaluate.h"

#include <cmath>
#include <functional>
#include <map>
#include <string>

#include "compiler/graph/infer.h"
#include "compiler/support/error.h"

namespace tessera {
namespace graph {
namespace {

using Data = std::shared_ptr<TensorData>;

std::vector<int64_t> Strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

// Flat index into `in` (broadcast to `out`) of the output element `flat`.
int64_t BroadcastIndex(const std::vector<int64_t>& out, const std::vector<int64_t>& in,
                       int64_t flat) {
  std::vector<int64_t> os = Strides(out), is = Strides(in);
  size_t offset = out.size() - in.size();
  int64_t index = 0;
  for (size_t d = 0; d < out.size(); ++d) {
    int64_t coord = flat / os[d] % out[d];
    if (d >= offset && in[d - offset] != 1) index += coord * is[d - offset];
  }
  return index;
}

const Value& Input(const Graph& g, const Node& node, size_t i) { return g.values[node.inputs[i]]; }

Data Output(const Graph& g, const Node& node, size_t i = 0) {
  const Value& v = g.values[node.outputs[i]];
  return TensorData::Zeros(v.dtype, v.shape);
}

Data Elementwise(const Graph& g, const Node& node,
                 const std::function<double(const std::vector<double>&)>& f) {
  Data out = Output(g, node);
  std::vector<double> args(node.inputs.size());
  for (int64_t i = 0; i < out->NumElements(); ++i) {
    for (size_t a = 0; a < node.inputs.size(); ++a) {
      const TensorData& in = *Input(g, node, a).data;
      args[a] = in.At(BroadcastIndex(out->shape, in.shape, i));
    }
    out->Set(i, f(args));
  }
  return out;
}

// Copies `out` from the input element each output index maps to.
Data Gathered(const Graph& g, const Node& node, const std::function<int64_t(int64_t)>& source) {
  Data out = Output(g, node);
  const TensorData& in = *Input(g, node, 0).data;
  const int64_t n = in.NumElements();
  for (int64_t i = 0; i < out->NumElements(); ++i) {
    int64_t from = source(i);
    TESSERA_USER_CHECK(from >= 0 && from < n)
        << "node '" << node.name << "' (" << node.op << ") reads element " << from << " of '"
        << Input(g, node, 0).name << "', which has " << n << " (an index out of range)";
    out->Set(i, in.At(from));
  }
  return out;
}

using EvalFn = std::function<std::vector<Data>(const Graph&, const Node&)>;

std::vector<Data> One(Data d) { return {std::move(d)}; }

const std::map<std::string, EvalFn>& EvalTable() {
  auto binary = [](std::function<double(double, double)> f) -> EvalFn {
    return [f](const Graph& g, const Node& n) {
      return One(Elementwise(g, n, [&](const std::vector<double>& a) { return f(a[0], a[1]); }));
    };
  };
  auto copy = [](const Graph& g, const Node& n) {
    return One(Gathered(g, n, [](int64_t i) { return i; }));
  };
  static const std::map<std::string, EvalFn> table = {
      {"Add", binary([](double a, double b) { return a + b; })},
      {"Sub", binary([](double a, double b) { return a - b; })},
      {"Mul", binary([](double a, double b) { return a * b; })},
      {"Div", binary([](double a, double b) { return a / b; })},
      {"Equal", binary([](double a, double b) { return a == b ? 1.0 : 0.0; })},
      {"Less", binary([](double a, double b) { return a < b ? 1.0 : 0.0; })},
      {"Greater", binary([](double a, double b) { return a > b ? 1.0 : 0.0; })},
      {"Pow", binary([](double a, double b) { return std::pow(a, b); })},
      {"Sqrt",
       [](const Graph& g, const Node& n) {
         return One(
             Elementwise(g, n, [](const std::vector<double>& a) { return std::sqrt(a[0]); }));
       }},
      {"Neg",
       [](const Graph& g, const Node& n) {
         return One(Elementwise(g, n, [](const std::vector<double>& a) { return -a[0]; }));
       }},
      {"Where",
       [](const Graph& g, const Node& n) {
         return One(
             Elementwise(g, n, [](const std::vector<double>& a) { return a[0] ? a[1] : a[2]; }));
       }},
      {"Cast", copy},
      {"Identity", copy},
      {"Reshape", copy},
      {"Flatten", copy},
      {"Unsqueeze", copy},
      {"Squeeze", copy},
      {"Expand",
       [](const Graph& g, const Node& n) {
         const Value& in = Input(g, n, 0);
         const std::vector<int64_t>& out = g.values[n.outputs[0]].shape;
         return One(Gathered(g, n, [&](int64_t i) { return BroadcastIndex(out, in.shape, i); }));
       }},
      {"Shape",
       [](const Graph& g, const Node& n) {
         const Value& in = Input(g, n, 0);
         Data out = Output(g, n);
         for (size_t i = 0; i < in.shape.size(); ++i) {
           out->Set(static_cast<int64_t>(i), static_cast<double>(in.shape[i]));
         }
         return One(out);
       }},
      {"ConstantOfShape",
       [](const Graph& g, const Node& n) {
         Data out = Output(g, n);
         auto it = n.attrs.find("value");
         double v = it != n.attrs.end() && it->second.tensor ? it->second.tensor->At(0) : 0.0;
         for (int64_t i = 0; i < out->NumElements(); ++i) out->Set(i, v);
         return One(out);
       }},
      {"Range",
       [](const Graph& g, const Node& n) {
         Data out = Output(g, n);
         double start = Input(g, n, 0).data->At(0), delta = Input(g, n, 2).data->At(0);
         for (int64_t i = 0; i < out->NumElements(); ++i) out->Set(i, start + delta * i);
         return One(out);
       }},
      {"Gather",
       [](const Graph& g, const Node& n) {
         const Value& x = Input(g, n, 0);
         const TensorData& idx = *Input(g, n, 1).data;
         int64_t rank = static_cast<int64_t>(x.shape.size());
         int64_t axis = NormalizeAxis(n.Int("axis", 0), rank, n.name);
         int64_t inner = 1, outer = 1;
         for (int64_t d = axis + 1; d < rank; ++d) inner *= x.shape[d];
         for (int64_t d = 0; d < axis; ++d) outer *= x.shape[d];
         int64_t count = idx.NumElements(), dim = x.shape[axis];
         return One(Gathered(g, n, [=, &idx](int64_t i) {
           int64_t in_i = i % inner, j = i / inner % count, o = i / inner / count;
           int64_t k = static_cast<int64_t>(idx.At(j));
           if (k < 0) k += dim;
           return (o * dim + k) * inner + in_i;
         }));
       }},
      {"Concat",
       [](const Graph& g, const Node& n) {
         Data out = Output(g, n);
         int64_t rank = static_cast<int64_t>(out->shape.size());
         int64_t axis = NormalizeAxis(n.Int("axis", 0), rank, n.name);
         int64_t inner = 1, outer = 1;
         for (int64_t d = axis + 1; d < rank; ++d) inner *= out->shape[d];
         for (int64_t d = 0; d < axis; ++d) outer *= out->shape[d];
         int64_t offset = 0;
         for (size_t a = 0; a < n.inputs.size(); ++a) {
           const TensorData& in = *Input(g, n, a).data;
           int64_t dim = in.shape[axis];
           for (int64_t o = 0; o < outer; ++o) {
             for (int64_t j = 0; j < dim * inner; ++j) {
               out->Set((o * out->shape[axis] + offset) * inner + j, in.At(o * dim * inner + j));
             }
           }
           offset += dim;
         }
         return One(out);
       }},
      {"Slice",
       [](const Graph& g, const Node& n) {
         const Value& x = Input(g, n, 0);
         const std::vector<int64_t>& out_shape = g.values[n.outputs[0]].shape;
         const int64_t rank = static_cast<int64_t>(x.shape.size());
         std::vector<int64_t> start(rank, 0), step(rank, 1);
         std::vector<int64_t> starts = Input(g, n, 1).data->AsInts();
         std::vector<int64_t> axes, steps;
         if (n.inputs.size() > 3 && n.inputs[3] >= 0) axes = Input(g, n, 3).data->AsInts();
         if (n.inputs.size() > 4 && n.inputs[4] >= 0) steps = Input(g, n, 4).data->AsInts();
         for (size_t i = 0; i < starts.size(); ++i) {
           int64_t a = axes.empty() ? static_cast<int64_t>(i) : NormalizeAxis(axes[i], rank, "");
           int64_t st = steps.empty() ? 1 : steps[i], dim = x.shape[a];
           int64_t s = starts[i] < 0 ? starts[i] + dim : starts[i];
           start[a] = st > 0 ? std::clamp<int64_t>(s, 0, dim) : std::clamp<int64_t>(s, 0, dim - 1);
           step[a] = st;
         }
         std::vector<int64_t> os = Strides(out_shape), is = Strides(x.shape);
         return One(Gathered(g, n, [&](int64_t i) {
           int64_t index = 0;
           for (int64_t d = 0; d < rank; ++d) {
             index += (start[d] + (i / os[d] % out_shape[d]) * step[d]) * is[d];
           }
           return index;
         }));
       }},
      {"Transpose",
       [](const Graph& g, const Node& n) {
         const Value& x = Input(g, n, 0);
         const std::vector<int64_t>& out_shape = g.values[n.outputs[0]].shape;
         std::vector<int64_t> perm = n.Ints("perm");
         if (perm.empty()) {
           for (size_t i = x.shape.size(); i-- > 0;) perm.push_back(static_cast<int64_t>(i));
         }
         std::vector<int64_t> os = Strides(out_shape), is = Strides(x.shape);
         return One(Gathered(g, n, [&](int64_t i) {
           int64_t index = 0;
           for (size_t d = 0; d < perm.size(); ++d) {
             index += (i / os[d] % out_shape[d]) * is[perm[d]];
           }
           return index;
         }));
       }},
  };
  return table;
}

}  // namespace

std::vector<std::shared_ptr<TensorData>> EvaluateNode(const Graph& g, const Node& node) {
  auto it = EvalTable().find(node.op);
  if (it == EvalTable().end() || node.outputs.size() != 1) return {};
  if (NumElements(g.values[node.outputs[0]].shape) > kMaxFoldedElements) return {};
  if (node.op != "Shape") {
    for (int in : node.inputs) {
      if (in >= 0 && !g.values[in].is_constant()) return {};
    }
  }
  return it->second(g, node);
}

}  // namespace graph
}  // namespace tessera
