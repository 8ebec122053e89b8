// The shape computations of exported models, evaluated at compile time: Shape, ConstantOfShape
// and Range.
#include <algorithm>

#include "compiler/ops/evaluate_util.h"
#include "compiler/ops/families.h"
#include "compiler/ops/infer_util.h"
#include "compiler/support/error.h"

namespace tessera {
namespace ops {
namespace {

using graph::DType;
using graph::Graph;
using graph::Node;

void InferShape(Graph& g, const Node& n) {
  SetOutput(g, n, 0, DType::kInt64, {static_cast<int64_t>(In(g, n, 0).shape.size())});
}

std::vector<Data> EvaluateShape(const Graph& g, const Node& n) {
  const graph::Value& in = Input(g, n, 0);
  Data out = OutputData(g, n);
  for (size_t i = 0; i < in.shape.size(); ++i) {
    out->Set(static_cast<int64_t>(i), static_cast<double>(in.shape[i]));
  }
  return One(out);
}

// ConstantOfShape's `value` attribute (a one-element tensor), or null.
const graph::TensorData* FillValue(const Node& n) {
  auto it = n.attrs.find("value");
  return it != n.attrs.end() && it->second.tensor ? it->second.tensor.get() : nullptr;
}

void InferConstantOfShape(Graph& g, const Node& n) {
  const graph::TensorData* value = FillValue(n);
  SetOutput(g, n, 0, value ? value->dtype : DType::kFloat32, ConstInts(g, n, 0, "shape"));
}

std::vector<Data> EvaluateConstantOfShape(const Graph& g, const Node& n) {
  Data out = OutputData(g, n);
  const graph::TensorData* value = FillValue(n);
  double v = value ? value->At(0) : 0.0;
  for (int64_t i = 0; i < out->NumElements(); ++i) out->Set(i, v);
  return One(out);
}

void InferRange(Graph& g, const Node& n) {
  const graph::Value& start = In(g, n, 0);
  std::vector<int64_t> s = ConstInts(g, n, 0, "start"), l = ConstInts(g, n, 1, "limit"),
                       d = ConstInts(g, n, 2, "delta");
  TESSERA_USER_CHECK(d[0] != 0) << NodeWhere(n) << ": delta 0";
  int64_t count = std::max<int64_t>(0, (l[0] - s[0] + d[0] - (d[0] > 0 ? 1 : -1)) / d[0]);
  SetOutput(g, n, 0, start.dtype, {count});
}

std::vector<Data> EvaluateRange(const Graph& g, const Node& n) {
  Data out = OutputData(g, n);
  double start = Input(g, n, 0).data->At(0), delta = Input(g, n, 2).data->At(0);
  for (int64_t i = 0; i < out->NumElements(); ++i) out->Set(i, start + delta * i);
  return One(out);
}

OpDef Def(const std::string& name, InferFn infer, EvaluateFn evaluate) {
  OpDef def;
  def.name = name;
  def.infer = std::move(infer);
  def.evaluate = std::move(evaluate);
  return def;
}

}  // namespace

void AddShapeOps(std::vector<OpDef>* defs) {
  OpDef shape = Def("Shape", InferShape, EvaluateShape);
  shape.evaluates_from_shapes = true;
  defs->push_back(shape);
  defs->push_back(Def("ConstantOfShape", InferConstantOfShape, EvaluateConstantOfShape));
  defs->push_back(Def("Range", InferRange, EvaluateRange));
}

}  // namespace ops
}  // namespace tessera
