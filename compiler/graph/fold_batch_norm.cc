#include "compiler/graph/fold_batch_norm.h"

#include <cmath>
#include <map>

#include "compiler/graph/dce.h"

namespace tessera {
namespace graph {
namespace {

bool IsConstant(const Graph& g, int id) { return id >= 0 && g.values[id].is_constant(); }

// Per-channel scale s / sqrt(var + eps) and shift beta - mean * scale.
void ScaleShift(const Graph& g, const Node& bn, std::vector<double>* scale,
                std::vector<double>* shift) {
  const TensorData& gamma = *g.values[bn.inputs[1]].data;
  const TensorData& beta = *g.values[bn.inputs[2]].data;
  const TensorData& mean = *g.values[bn.inputs[3]].data;
  const TensorData& var = *g.values[bn.inputs[4]].data;
  double eps = bn.Float("epsilon", 1e-5);
  for (int64_t c = 0; c < gamma.NumElements(); ++c) {
    double s = gamma.At(c) / std::sqrt(var.At(c) + eps);
    scale->push_back(s);
    shift->push_back(beta.At(c) - mean.At(c) * s);
  }
}

std::shared_ptr<TensorData> Channels(const std::vector<double>& v, size_t rank) {
  std::vector<int64_t> shape(rank - 1, 1);
  shape[0] = static_cast<int64_t>(v.size());
  auto t = TensorData::Zeros(DType::kFloat32, shape);
  for (size_t c = 0; c < v.size(); ++c) t->Set(static_cast<int64_t>(c), v[c]);
  return t;
}

}  // namespace

void FoldBatchNorm(Graph& g) {
  std::vector<int> uses = g.UseCounts();
  std::vector<Node> nodes;
  std::map<int, size_t> kept_producer;  // value id -> index in `nodes` of its producer
  for (Node& bn : g.nodes) {
    bool params_constant = bn.op == "BatchNormalization";
    for (size_t i = 1; params_constant && i < 5; ++i) {
      params_constant = IsConstant(g, bn.inputs[i]);
    }
    if (!params_constant) {
      for (int out : bn.outputs) kept_producer[out] = nodes.size();
      nodes.push_back(std::move(bn));
      continue;
    }
    std::vector<double> scale, shift;
    ScaleShift(g, bn, &scale, &shift);
    int x = bn.inputs[0];
    auto it = kept_producer.find(x);
    Node* conv = it != kept_producer.end() ? &nodes[it->second] : nullptr;
    bool foldable =
        conv && conv->op == "Conv" && uses[x] == 1 && IsConstant(g, conv->inputs[1]) &&
        (conv->inputs.size() < 3 || conv->inputs[2] < 0 || IsConstant(g, conv->inputs[2]));
    if (foldable) {
      const TensorData& w = *g.values[conv->inputs[1]].data;
      auto nw = std::make_shared<TensorData>(w);
      int64_t per_channel = w.NumElements() / static_cast<int64_t>(scale.size());
      for (int64_t i = 0; i < nw->NumElements(); ++i) {
        nw->Set(i, w.At(i) * scale[static_cast<size_t>(i / per_channel)]);
      }
      auto nb = TensorData::Zeros(DType::kFloat32, {static_cast<int64_t>(scale.size())});
      bool has_bias = conv->inputs.size() > 2 && conv->inputs[2] >= 0;
      for (size_t c = 0; c < scale.size(); ++c) {
        double b = has_bias ? g.values[conv->inputs[2]].data->At(static_cast<int64_t>(c)) : 0.0;
        nb->Set(static_cast<int64_t>(c), b * scale[c] + shift[c]);
      }
      conv->inputs.resize(3);
      conv->inputs[1] = g.AddConstant(g.values[conv->inputs[1]].name + "_bnfold", nw);
      conv->inputs[2] = g.AddConstant(conv->name + "_bias_bnfold", nb);
      // The convolution now produces the batch norm's output (its readers keep their input).
      conv->outputs[0] = bn.outputs[0];
      kept_producer[bn.outputs[0]] = it->second;
      continue;
    }
    size_t rank = g.values[x].shape.size();
    int s = g.AddConstant(bn.name + "_scale", Channels(scale, rank));
    int t = g.AddConstant(bn.name + "_shift", Channels(shift, rank));
    Value mid = g.values[bn.outputs[0]];
    mid.name = g.UniqueName(mid.name + "_scaled");
    mid.data = nullptr;
    int m = g.AddValue(mid);
    Node mul;
    mul.op = "Mul";
    mul.name = bn.name + "_scale";
    mul.inputs = {x, s};
    mul.outputs = {m};
    Node add;
    add.op = "Add";
    add.name = bn.name + "_shift";
    add.inputs = {m, t};
    add.outputs = {bn.outputs[0]};
    kept_producer[bn.outputs[0]] = nodes.size() + 1;
    nodes.push_back(std::move(mul));
    nodes.push_back(std::move(add));
  }
  g.nodes = std::move(nodes);
  EliminateDeadCode(g);
}

}  // namespace graph
}  // namespace tessera
