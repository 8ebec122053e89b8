#include "compiler/ops/evaluate_util.h"

#include "compiler/support/error.h"

namespace tessera {
namespace ops {

std::vector<int64_t> Strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

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

const graph::Value& Input(const graph::Graph& g, const graph::Node& node, size_t i) {
  return g.values[node.inputs[i]];
}

Data OutputData(const graph::Graph& g, const graph::Node& node, size_t i) {
  const graph::Value& v = g.values[node.outputs[i]];
  return graph::TensorData::Zeros(v.dtype, v.shape);
}

Data MapElements(const graph::Graph& g, const graph::Node& node,
                 const std::function<double(const std::vector<double>&)>& f) {
  Data out = OutputData(g, node);
  std::vector<double> args(node.inputs.size());
  for (int64_t i = 0; i < out->NumElements(); ++i) {
    for (size_t a = 0; a < node.inputs.size(); ++a) {
      const graph::TensorData& in = *Input(g, node, a).data;
      args[a] = in.At(BroadcastIndex(out->shape, in.shape, i));
    }
    out->Set(i, f(args));
  }
  return out;
}

Data Gathered(const graph::Graph& g, const graph::Node& node,
              const std::function<int64_t(int64_t)>& source) {
  Data out = OutputData(g, node);
  const graph::TensorData& in = *Input(g, node, 0).data;
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

std::vector<Data> CopyInput(const graph::Graph& g, const graph::Node& node) {
  return One(Gathered(g, node, [](int64_t i) { return i; }));
}

std::vector<Data> One(Data d) { return {std::move(d)}; }

}  // namespace ops
}  // namespace tessera
