#include "compiler/graph/infer.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "compiler/support/error.h"

namespace tessera {
namespace graph {
namespace {

const std::set<std::string>& UnaryOps() {
  static const std::set<std::string> ops = {
      "Relu", "Sigmoid", "Tanh", "Erf",   "Sqrt", "Exp",      "Log",     "Neg",
      "Abs",  "Clip",    "Gelu", "Floor", "Ceil", "Identity", "Dropout", "Reciprocal"};
  return ops;
}

const std::set<std::string>& BinaryOps() {
  static const std::set<std::string> ops = {"Add",   "Sub",  "Mul",     "Div", "Pow",
                                            "Equal", "Less", "Greater", "Max", "Min"};
  return ops;
}

const std::set<std::string>& OtherOps() {
  static const std::set<std::string> ops = {"Conv",
                                            "Gemm",
                                            "MatMul",
                                            "MaxPool",
                                            "AveragePool",
                                            "Concat",
                                            "Flatten",
                                            "Reshape",
                                            "Pad",
                                            "GlobalAveragePool",
                                            "Transpose",
                                            "Gather",
                                            "Softmax",
                                            "BatchNormalization",
                                            "LayerNormalization",
                                            "ReduceMean",
                                            "Slice",
                                            "Unsqueeze",
                                            "Squeeze",
                                            "Shape",
                                            "Expand",
                                            "Where",
                                            "Cast",
                                            "ConstantOfShape",
                                            "Range",
                                            "Split"};
  return ops;
}

std::string Where(const Graph& g, const Node& node) {
  return "node '" + node.name + "' (" + node.op + ")";
}

const Value& In(const Graph& g, const Node& node, size_t i) {
  TESSERA_USER_CHECK(i < node.inputs.size() && node.inputs[i] >= 0)
      << Where(g, node) << " lacks its input " << i;
  return g.values[node.inputs[i]];
}

bool HasInput(const Node& node, size_t i) { return i < node.inputs.size() && node.inputs[i] >= 0; }

// A shape-giving input (Reshape's shape, Slice's starts, ...) must be known at compile time.
std::vector<int64_t> ConstInts(const Graph& g, const Node& node, size_t i, const char* what) {
  const Value& v = In(g, node, i);
  TESSERA_USER_CHECK(v.is_constant())
      << Where(g, node) << ": its " << what << " input '" << v.name
      << "' is computed at run time; Tessera compiles static shapes only (give input shapes "
         "with --input-shape)";
  return v.data->AsInts();
}

void SetOutput(Graph& g, const Node& node, size_t i, DType dtype, std::vector<int64_t> shape) {
  if (i >= node.outputs.size()) return;
  Value& v = g.values[node.outputs[i]];
  v.dtype = dtype;
  v.shape = std::move(shape);
}

DType DTypeFromOnnx(int64_t code, const std::string& where) {
  switch (code) {
    case 1:
      return DType::kFloat32;
    case 6:
      return DType::kInt32;
    case 7:
      return DType::kInt64;
    case 9:
      return DType::kBool;
    default:
      break;
  }
  TESSERA_USER_ERROR() << where << ": element type code " << code
                       << " is not supported (float32, int32, int64, bool)";
  return DType::kFloat32;
}

// Output size of a pooling or convolution window along one axis.
int64_t WindowOut(int64_t in, int64_t k, int64_t stride, int64_t pad_begin, int64_t pad_end,
                  int64_t dilation, bool ceil_mode) {
  int64_t span = in + pad_begin + pad_end - ((k - 1) * dilation + 1);
  int64_t out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  // ONNX (like PyTorch) drops a last window that would start inside the end padding.
  if (ceil_mode && (out - 1) * stride >= in + pad_begin) --out;
  return out;
}

std::vector<int64_t> Pads4(const Node& node) {
  std::vector<int64_t> pads = node.Ints("pads", {0, 0, 0, 0});
  return pads;
}

void InferConv(Graph& g, const Node& node) {
  const Value& x = In(g, node, 0);
  const Value& w = In(g, node, 1);
  std::string where = Where(g, node);
  TESSERA_USER_CHECK(x.shape.size() == 4 && w.shape.size() == 4)
      << where << ": only 2-D convolutions (4-D input and weights) are supported, got input "
      << ShapeString(x.shape) << " and weights " << ShapeString(w.shape);
  int64_t group = node.Int("group", 1);
  TESSERA_USER_CHECK(group > 0 && x.shape[1] % group == 0 && w.shape[0] % group == 0 &&
                     w.shape[1] * group == x.shape[1])
      << where << ": input '" << x.name << "' has " << x.shape[1] << " channels but weights '"
      << w.name << "' " << ShapeString(w.shape) << " with group " << group << " expect "
      << w.shape[1] * group;
  if (HasInput(node, 2)) {
    const Value& b = In(g, node, 2);
    TESSERA_USER_CHECK(b.shape == std::vector<int64_t>{w.shape[0]})
        << where << ": bias '" << b.name << "' has shape " << ShapeString(b.shape) << ", expected "
        << w.shape[0];
  }
  std::vector<int64_t> strides = node.Ints("strides", {1, 1});
  std::vector<int64_t> dil = node.Ints("dilations", {1, 1});
  std::vector<int64_t> pads = Pads4(node);
  std::vector<int64_t> out = {x.shape[0], w.shape[0]};
  for (int a = 0; a < 2; ++a) {
    int64_t o =
        WindowOut(x.shape[2 + a], w.shape[2 + a], strides[a], pads[a], pads[a + 2], dil[a], false);
    TESSERA_USER_CHECK(o > 0) << where << ": the kernel does not fit the input "
                              << ShapeString(x.shape);
    out.push_back(o);
  }
  SetOutput(g, node, 0, DType::kFloat32, out);
}

void InferPool(Graph& g, const Node& node) {
  const Value& x = In(g, node, 0);
  std::string where = Where(g, node);
  TESSERA_USER_CHECK(x.shape.size() == 4)
      << where << ": only 2-D pooling (4-D input) is supported, got " << ShapeString(x.shape);
  std::vector<int64_t> k = node.Ints("kernel_shape");
  TESSERA_USER_CHECK(k.size() == 2) << where << ": kernel_shape must have 2 entries";
  std::vector<int64_t> strides = node.Ints("strides", {1, 1});
  std::vector<int64_t> pads = Pads4(node);
  bool ceil_mode = node.Int("ceil_mode", 0) != 0;
  std::vector<int64_t> out = {x.shape[0], x.shape[1]};
  for (int a = 0; a < 2; ++a) {
    out.push_back(WindowOut(x.shape[2 + a], k[a], strides[a], pads[a], pads[a + 2], 1, ceil_mode));
  }
  SetOutput(g, node, 0, x.dtype, out);
}

std::vector<int64_t> MatMulShape(const Graph& g, const Node& node, std::vector<int64_t> a,
                                 std::vector<int64_t> b) {
  std::string where = Where(g, node);
  TESSERA_USER_CHECK(!a.empty() && !b.empty()) << where << ": operands must not be scalars";
  bool a1 = a.size() == 1, b1 = b.size() == 1;
  if (a1) a.insert(a.begin(), 1);
  if (b1) b.push_back(1);
  TESSERA_USER_CHECK(a.back() == b[b.size() - 2])
      << where << ": inner dimensions differ: " << ShapeString(a) << " times " << ShapeString(b);
  std::vector<int64_t> batch = BroadcastShapes(std::vector<int64_t>(a.begin(), a.end() - 2),
                                               std::vector<int64_t>(b.begin(), b.end() - 2), where);
  std::vector<int64_t> out = batch;
  if (!a1) out.push_back(a[a.size() - 2]);
  if (!b1) out.push_back(b.back());
  return out;
}

std::vector<int64_t> ReshapeTarget(const Graph& g, const Node& node, const Value& x) {
  std::vector<int64_t> target = ConstInts(g, node, 1, "shape");
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == 0 && node.Int("allowzero", 0) == 0) {
      TESSERA_USER_CHECK(i < x.shape.size()) << Where(g, node) << ": 0 at position " << i
                                             << " of the shape has no input dimension to copy";
      target[i] = x.shape[i];
    }
    if (target[i] == -1) {
      TESSERA_USER_CHECK(infer < 0) << Where(g, node) << ": more than one -1 in the shape";
      infer = static_cast<int64_t>(i);
    } else {
      known *= target[i];
    }
  }
  int64_t total = NumElements(x.shape);
  if (infer >= 0) {
    TESSERA_USER_CHECK(known > 0 && total % known == 0)
        << Where(g, node) << ": cannot reshape " << ShapeString(x.shape) << " to "
        << ShapeString(target);
    target[infer] = total / known;
  }
  TESSERA_USER_CHECK(NumElements(target) == total)
      << Where(g, node) << ": cannot reshape '" << x.name << "' of shape " << ShapeString(x.shape)
      << " (" << total << " elements) to " << ShapeString(target);
  return target;
}

void InferSlice(Graph& g, const Node& node) {
  const Value& x = In(g, node, 0);
  std::vector<int64_t> starts = ConstInts(g, node, 1, "starts");
  std::vector<int64_t> ends = ConstInts(g, node, 2, "ends");
  std::vector<int64_t> axes, steps;
  if (HasInput(node, 3)) axes = ConstInts(g, node, 3, "axes");
  if (HasInput(node, 4)) steps = ConstInts(g, node, 4, "steps");
  std::vector<int64_t> out = x.shape;
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t axis =
        axes.empty() ? static_cast<int64_t>(i) : NormalizeAxis(axes[i], rank, Where(g, node));
    int64_t step = steps.empty() ? 1 : steps[i];
    TESSERA_USER_CHECK(step != 0) << Where(g, node) << ": step 0";
    int64_t dim = x.shape[axis];
    int64_t s = starts[i] < 0 ? starts[i] + dim : starts[i];
    int64_t e = ends[i] < 0 ? ends[i] + dim : ends[i];
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      out[axis] = e > s ? (e - s + step - 1) / step : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      out[axis] = s > e ? (s - e - step - 1) / -step : 0;
    }
  }
  SetOutput(g, node, 0, x.dtype, out);
}

std::vector<int64_t> Unsqueezed(const Graph& g, const Node& node, const std::vector<int64_t>& in,
                                std::vector<int64_t> axes) {
  const int64_t rank = static_cast<int64_t>(in.size() + axes.size());
  for (int64_t& a : axes) a = NormalizeAxis(a, rank, Where(g, node));
  std::sort(axes.begin(), axes.end());
  std::vector<int64_t> out;
  size_t next = 0;
  for (int64_t i = 0; i < rank; ++i) {
    if (std::binary_search(axes.begin(), axes.end(), i)) {
      out.push_back(1);
    } else {
      out.push_back(in[next++]);
    }
  }
  return out;
}

std::vector<int64_t> ReduceAxes(const Graph& g, const Node& node, int64_t rank) {
  std::vector<int64_t> axes = node.Ints("axes");
  if (axes.empty()) {
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  }
  for (int64_t& a : axes) a = NormalizeAxis(a, rank, Where(g, node));
  return axes;
}

using InferFn = std::function<void(Graph&, const Node&)>;

const std::map<std::string, InferFn>& InferTable() {
  static const std::map<std::string, InferFn> table = {
      {"Conv", InferConv},
      {"MaxPool", InferPool},
      {"AveragePool", InferPool},
      {"GlobalAveragePool",
       [](Graph& g, const Node& n) {
         const Value& x = In(g, n, 0);
         TESSERA_USER_CHECK(x.shape.size() == 4) << Where(g, n) << ": expects a 4-D input";
         SetOutput(g, n, 0, x.dtype, {x.shape[0], x.shape[1], 1, 1});
       }},
      {"BatchNormalization",
       [](Graph& g, const Node& n) {
         const Value& x = In(g, n, 0);
         TESSERA_USER_CHECK(x.shape.size() >= 2) << Where(g, n) << ": input rank must be ≥ 2";
         for (size_t i = 1; i < 5; ++i) {
           const Value& p = In(g, n, i);
           TESSERA_USER_CHECK(p.shape == std::vector<int64_t>{x.shape[1]})
               << Where(g, n) << ": '" << p.name << "' has shape " << ShapeString(p.shape)
               << ", expected " << x.shape[1];
         }
         SetOutput(g, n, 0, x.dtype, x.shape);
       }},
      {"Gemm",
       [](Graph& g, const Node& n) {
         std::vector<int64_t> a = In(g, n, 0).shape, b = In(g, n, 1).shape;
         TESSERA_USER_CHECK(a.size() == 2 && b.size() == 2)
             << Where(g, n) << ": operands must be 2-D, got " << ShapeString(a) << " and "
             << ShapeString(b);
         if (n.Int("transA", 0)) std::swap(a[0], a[1]);
         if (n.Int("transB", 0)) std::swap(b[0], b[1]);
         TESSERA_USER_CHECK(a[1] == b[0])
             << Where(g, n) << ": inner dimensions differ: " << ShapeString(a) << " times "
             << ShapeString(b);
         std::vector<int64_t> out = {a[0], b[1]};
         if (HasInput(n, 2)) BroadcastShapes(out, In(g, n, 2).shape, Where(g, n));
         SetOutput(g, n, 0, DType::kFloat32, out);
       }},
      {"MatMul",
       [](Graph& g, const Node& n) {
         SetOutput(g, n, 0, DType::kFloat32,
                   MatMulShape(g, n, In(g, n, 0).shape, In(g, n, 1).shape));
       }},
      {"Concat",
       [](Graph& g, const Node& n) {
         const Value& first = In(g, n, 0);
         int64_t rank = static_cast<int64_t>(first.shape.size());
         int64_t axis = NormalizeAxis(n.Int("axis", 0), rank, Where(g, n));
         std::vector<int64_t> out = first.shape;
         out[axis] = 0;
         for (size_t i = 0; i < n.inputs.size(); ++i) {
           const Value& v = In(g, n, i);
           bool same = v.shape.size() == first.shape.size();
           for (int64_t d = 0; same && d < rank; ++d) {
             same = d == axis || v.shape[d] == first.shape[d];
           }
           TESSERA_USER_CHECK(same && v.dtype == first.dtype)
               << Where(g, n) << ": input '" << v.name << "' " << ShapeString(v.shape)
               << " does not match '" << first.name << "' " << ShapeString(first.shape)
               << " outside axis " << axis;
           out[axis] += v.shape[axis];
         }
         SetOutput(g, n, 0, first.dtype, out);
       }},
      {"Flatten",
       [](Graph& g, const Node& n) {
         const Value& x = In(g, n, 0);
         int64_t rank = static_cast<int64_t>(x.shape.size());
         int64_t axis = n.Int("axis", 1);
         if (axis < 0) axis += rank;
         TESSERA_USER_CHECK(axis >= 0 && axis <= rank) << Where(g, n) << ": bad axis";
         int64_t outer = 1, inner = 1;
         for (int64_t i = 0; i < rank; ++i) (i < axis ? outer : inner) *= x.shape[i];
         SetOutput(g, n, 0, x.dtype, {outer, inner});
       }},
      {"Reshape",
       [](Graph& g, const Node& n) {
         const Value& x = In(g, n, 0);
         SetOutput(g, n, 0, x.dtype, ReshapeTarget(g, n, x));
       }},
      {"Pad",
       [](Graph& g, const Node& n) {
         const Value& x = In(g, n, 0);
         std::vector<int64_t> pads = ConstInts(g, n, 1, "pads");
         TESSERA_USER_CHECK(pads.size() == 2 * x.shape.size())
             << Where(g, n) << ": " << pads.size() << " pads for a rank-" << x.shape.size()
             << " input";
         std::vector<int64_t> out = x.shape;
         for (size_t i = 0; i < out.size(); ++i) out[i] += pads[i] + pads[i + out.size()];
         SetOutput(g, n, 0, x.dtype, out);
       }},
      {"Transpose",
       [](Graph& g, const Node& n) {
         const Value& x = In(g, n, 0);
         std::vector<int64_t> perm = n.Ints("perm");
         if (perm.empty()) {
           for (size_t i = x.shape.size(); i-- > 0;) perm.push_back(static_cast<int64_t>(i));
         }
         TESSERA_USER_CHECK(perm.size() == x.shape.size()) << Where(g, n) << ": perm size";
         std::vector<int64_t> out;
         for (int64_t p : perm) out.push_back(x.shape.at(static_cast<size_t>(p)));
         SetOutput(g, n, 0, x.dtype, out);
       }},
      {"Gather",
       [](Graph& g, const Node& n) {
         const Value& x = In(g, n, 0);
         const Value& idx = In(g, n, 1);
         int64_t rank = static_cast<int64_t>(x.shape.size());
         int64_t axis = NormalizeAxis(n.Int("axis", 0), rank, Where(g, n));
         std::vector<int64_t> out(x.shape.begin(), x.shape.begin() + axis);
         out.insert(out.end(), idx.shape.begin(), idx.shape.end());
         out.insert(out.end(), x.shape.begin() + axis + 1, x.shape.end());
         SetOutput(g, n, 0, x.dtype, out);
       }},
      {"Softmax",
       [](Graph& g, const Node& n) {
         const Value& x = In(g, n, 0);
         NormalizeAxis(n.Int("axis", -1), static_cast<int64_t>(x.shape.size()), Where(g, n));
         SetOutput(g, n, 0, x.dtype, x.shape);
       }},
      {"LayerNormalization",
       [](Graph& g, const Node& n) {
         const Value& x = In(g, n, 0);
         NormalizeAxis(n.Int("axis", -1), static_cast<int64_t>(x.shape.size()), Where(g, n));
         SetOutput(g, n, 0, x.dtype, x.shape);
       }},
      {"ReduceMean",
       [](Graph& g, const Node& n) {
         const Value& x = In(g, n, 0);
         int64_t rank = static_cast<int64_t>(x.shape.size());
         std::vector<int64_t> axes = ReduceAxes(g, n, rank);
         bool keep = n.Int("keepdims", 1) != 0;
         std::vector<int64_t> out;
         for (int64_t i = 0; i < rank; ++i) {
           bool reduced = std::find(axes.begin(), axes.end(), i) != axes.end();
           if (!reduced) {
             out.push_back(x.shape[i]);
           } else if (keep) {
             out.push_back(1);
           }
         }
         SetOutput(g, n, 0, x.dtype, out);
       }},
      {"Slice", InferSlice},
      {"Unsqueeze",
       [](Graph& g, const Node& n) {
         const Value& x = In(g, n, 0);
         std::vector<int64_t> axes = HasInput(n, 1) ? ConstInts(g, n, 1, "axes") : n.Ints("axes");
         SetOutput(g, n, 0, x.dtype, Unsqueezed(g, n, x.shape, axes));
       }},
      {"Squeeze",
       [](Graph& g, const Node& n) {
         const Value& x = In(g, n, 0);
         int64_t rank = static_cast<int64_t>(x.shape.size());
         std::vector<int64_t> axes = HasInput(n, 1) ? ConstInts(g, n, 1, "axes") : n.Ints("axes");
         for (int64_t& a : axes) a = NormalizeAxis(a, rank, Where(g, n));
         std::vector<int64_t> out;
         for (int64_t i = 0; i < rank; ++i) {
           bool squeeze = axes.empty() ? x.shape[i] == 1
                                       : std::find(axes.begin(), axes.end(), i) != axes.end();
           TESSERA_USER_CHECK(!squeeze || x.shape[i] == 1)
               << Where(g, n) << ": axis " << i << " of '" << x.name << "' has size " << x.shape[i]
               << ", not 1";
           if (!squeeze) out.push_back(x.shape[i]);
         }
         SetOutput(g, n, 0, x.dtype, out);
       }},
      {"Shape",
       [](Graph& g, const Node& n) {
         SetOutput(g, n, 0, DType::kInt64, {static_cast<int64_t>(In(g, n, 0).shape.size())});
       }},
      {"Expand",
       [](Graph& g, const Node& n) {
         const Value& x = In(g, n, 0);
         SetOutput(g, n, 0, x.dtype,
                   BroadcastShapes(x.shape, ConstInts(g, n, 1, "shape"), Where(g, n)));
       }},
      {"Where",
       [](Graph& g, const Node& n) {
         std::string where = Where(g, n);
         std::vector<int64_t> s =
             BroadcastShapes(In(g, n, 0).shape,
                             BroadcastShapes(In(g, n, 1).shape, In(g, n, 2).shape, where), where);
         SetOutput(g, n, 0, In(g, n, 1).dtype, s);
       }},
      {"Cast",
       [](Graph& g, const Node& n) {
         SetOutput(g, n, 0, DTypeFromOnnx(n.Int("to", 1), Where(g, n)), In(g, n, 0).shape);
       }},
      {"ConstantOfShape",
       [](Graph& g, const Node& n) {
         DType t = DType::kFloat32;
         auto it = n.attrs.find("value");
         if (it != n.attrs.end() && it->second.tensor) t = it->second.tensor->dtype;
         SetOutput(g, n, 0, t, ConstInts(g, n, 0, "shape"));
       }},
      {"Range",
       [](Graph& g, const Node& n) {
         const Value& start = In(g, n, 0);
         std::vector<int64_t> s = ConstInts(g, n, 0, "start"), l = ConstInts(g, n, 1, "limit"),
                              d = ConstInts(g, n, 2, "delta");
         TESSERA_USER_CHECK(d[0] != 0) << Where(g, n) << ": delta 0";
         int64_t count = std::max<int64_t>(0, (l[0] - s[0] + d[0] - (d[0] > 0 ? 1 : -1)) / d[0]);
         SetOutput(g, n, 0, start.dtype, {count});
       }},
      {"Split",
       [](Graph& g, const Node& n) {
         const Value& x = In(g, n, 0);
         int64_t axis =
             NormalizeAxis(n.Int("axis", 0), static_cast<int64_t>(x.shape.size()), Where(g, n));
         std::vector<int64_t> split =
             HasInput(n, 1) ? ConstInts(g, n, 1, "split") : n.Ints("split");
         int64_t parts = static_cast<int64_t>(n.outputs.size());
         if (split.empty()) {
           TESSERA_USER_CHECK(x.shape[axis] % parts == 0)
               << Where(g, n) << ": " << x.shape[axis] << " does not split in " << parts;
           split.assign(static_cast<size_t>(parts), x.shape[axis] / parts);
         }
         int64_t total = 0;
         for (int64_t s : split) total += s;
         TESSERA_USER_CHECK(total == x.shape[axis] && split.size() == static_cast<size_t>(parts))
             << Where(g, n) << ": split sizes do not add up to " << x.shape[axis];
         for (size_t i = 0; i < split.size(); ++i) {
           std::vector<int64_t> s = x.shape;
           s[axis] = split[i];
           SetOutput(g, n, i, x.dtype, s);
         }
       }},
  };
  return table;
}

}  // namespace

const std::vector<std::string>& SupportedOperators() {
  static const std::vector<std::string> ops = [] {
    std::set<std::string> all = UnaryOps();
    all.insert(BinaryOps().begin(), BinaryOps().end());
    all.insert(OtherOps().begin(), OtherOps().end());
    return std::vector<std::string>(all.begin(), all.end());
  }();
  return ops;
}

bool IsElementwise(const std::string& op) {
  return (UnaryOps().count(op) && op != "Identity" && op != "Dropout") || BinaryOps().count(op) ||
         op == "Where" || op == "Cast";
}

std::string UnsupportedReason(const Node& node) {
  const std::string& op = node.op;
  if (!UnaryOps().count(op) && !BinaryOps().count(op) && !OtherOps().count(op)) {
    return "operator " + op + " is not supported";
  }
  auto ones = [&](const char* key) {
    for (int64_t v : node.Ints(key)) {
      if (v != 1) return false;
    }
    return true;
  };
  std::string auto_pad = node.String("auto_pad", "NOTSET");
  if ((op == "Conv" || op == "MaxPool" || op == "AveragePool") && auto_pad != "NOTSET" &&
      auto_pad != "VALID") {
    return "auto_pad=" + auto_pad + " is not supported (NOTSET, VALID)";
  }
  if ((op == "MaxPool" || op == "AveragePool") && !ones("dilations")) {
    return "pooling with dilations is not supported";
  }
  if (op == "MaxPool" && node.Int("storage_order", 0) != 0) return "storage_order=1";
  if (op == "MaxPool" && node.outputs.size() > 1) return "MaxPool with an Indices output";
  if (op == "Pad" && node.String("mode", "constant") != "constant") {
    return "mode=" + node.String("mode", "") + " is not supported (constant)";
  }
  if (op == "BatchNormalization" && node.Int("training_mode", 0) != 0) return "training_mode=1";
  if (op == "Gelu" && node.String("approximate", "none") != "none") {
    return "approximate=" + node.String("approximate", "") + " is not supported (none)";
  }
  return "";
}

std::vector<int64_t> BroadcastShapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                                     const std::string& where) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    TESSERA_USER_CHECK(da == db || da == 1 || db == 1)
        << where << ": shapes " << ShapeString(a) << " and " << ShapeString(b)
        << " do not broadcast";
    out[i] = da == 1 ? db : da;
  }
  return out;
}

int64_t NormalizeAxis(int64_t axis, int64_t rank, const std::string& where) {
  int64_t a = axis < 0 ? axis + rank : axis;
  TESSERA_USER_CHECK(a >= 0 && a < rank)
      << where << ": axis " << axis << " is out of range for rank " << rank;
  return a;
}

void InferNode(Graph& g, const Node& node) {
  std::string reason = UnsupportedReason(node);
  TESSERA_USER_CHECK(reason.empty()) << Where(g, node) << ": " << reason;
  if (UnaryOps().count(node.op)) {
    const Value& x = In(g, node, 0);
    SetOutput(g, node, 0, x.dtype, x.shape);
    if (node.op == "Dropout") SetOutput(g, node, 1, DType::kBool, x.shape);
    return;
  }
  if (BinaryOps().count(node.op)) {
    std::string where = Where(g, node);
    std::vector<int64_t> shape = In(g, node, 0).shape;
    for (size_t i = 1; i < node.inputs.size(); ++i) {
      shape = BroadcastShapes(shape, In(g, node, i).shape, where);
    }
    bool compare = node.op == "Equal" || node.op == "Less" || node.op == "Greater";
    SetOutput(g, node, 0, compare ? DType::kBool : In(g, node, 0).dtype, shape);
    return;
  }
  InferTable().at(node.op)(g, node);
}

void InferShapes(Graph& g) {
  for (const Node& node : g.nodes) InferNode(g, node);
}

}  // namespace graph
}  // namespace tessera
