// The emitter's dense layers (x86 with a fused output stage, CUDA) and batched products.
#include "compiler/driver/emitter.h"

#include "compiler/task/blocked_layout.h"
#include "compiler/topi/batch_matmul_x86.h"
#include "compiler/topi/dense_x86.h"

namespace tessera {
namespace driver {

using graph::Node;
using graph::Value;
using ir::Expr;
using ir::Var;

bool ModelEmitter::EmitDense(const GroupPlan& plan, const std::vector<const Node*>& group) {
  const Node& node = *group[0];
  int a = node.inputs[0], bw = node.inputs[1];
  const auto& as = g_.values[a].shape;
  const auto& bs = g_.values[bw].shape;
  bool gemm = node.op == "Gemm";
  bool trans_b = gemm && node.Int("transB", 0);
  const int64_t k = as.back(), n = trans_b ? bs[0] : bs[1];
  const int64_t m = graph::NumElements(as) / k;
  const task::Task* task = plan.task.get();
  const space::ConfigEntity& config = *plan.config;
  // Weights as W[n, k]: as they are for the GPU, in column blocks of bn for the CPU.
  const graph::TensorData& wd = *g_.values[bw].data;
  std::vector<float> w(static_cast<size_t>(n * k));
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t c = 0; c < k; ++c) {
      w[r * k + c] = trans_b ? wd.f32()[r * k + c] : wd.f32()[c * n + r];
    }
  }
  const DLDataType f32 = DLType(graph::DType::kFloat32);
  int pw = -1;
  if (plan.path == KernelPath::kDenseCUDA) {
    pw = AddParam(g_.values[bw].name + "_NK",
                  HostArray({n, k}, f32, w.data(), w.size() * sizeof(float)));
  } else {
    const int64_t bn = topi::DenseWeightBlock(config);
    std::vector<float> packed = task::ToColumnBlocks(w, n, k, bn);
    pw = AddParam(g_.values[bw].name + "_packed",
                  HostArray({n / bn, k, bn}, f32, packed.data(), packed.size() * sizeof(float)));
  }
  int a2 = Alias(TensorOf(a), {m, k}, g_.values[a].name + "_2d");
  const Value& out = g_.values[node.outputs[0]];
  int bias = gemm && node.inputs.size() > 2 ? node.inputs[2] : -1;
  if (plan.fused) {
    // Bias, activation and residual add run in the template's output stage: one kernel.
    const Value& last = g_.values[group.back()->outputs[0]];
    Args args;
    const topi::OutputEpilogue epilogue =
        FusedDenseEpilogue(group, bias, m, n, ir::DataType::Float(32), nullptr, &args);
    topi::DenseShape shape{m, n, k};
    int raw = NewTensor(last.name + "_2d", f32, {m, n}, kNewBuffer);
    std::vector<int> inputs = {a2, pw};
    inputs.insert(inputs.end(), args.ids.begin(), args.ids.end());
    AddKernel(GroupName(group), "dense", topi::DenseX86(shape, config, &epilogue), inputs, {raw});
    value_tensor_[group.back()->outputs[0]] = Alias(raw, last.shape, last.name);
    return true;
  }
  const std::string symbol = Symbol(exec_.nodes.size(), "dense");
  if (!AddTemplateKernel(node, task->Instantiate(config), symbol)) return false;
  int raw = NewTensor(node.name + "_dense", f32, {m, n}, kNewBuffer);
  exec_.nodes.push_back({node.name, symbol, {a2, pw}, {raw}});
  int shaped = Alias(raw, out.shape, node.name + "_dense_nd");
  Epilogue(group, shaped, bias, -1, {}, out.shape);
  return true;
}

topi::OutputEpilogue ModelEmitter::FusedDenseEpilogue(
    const std::vector<const Node*>& group, int bias, int64_t m, int64_t n, ir::DataType result_type,
    std::function<te::Tensor(const te::Tensor&)> to_float, Args* args) {
  const std::vector<int64_t> out_shape = g_.values[group[0]->outputs[0]].shape;
  const Value& last = g_.values[group.back()->outputs[0]];
  const std::vector<int64_t> last_shape = last.shape;
  const std::string name = last.name + "_2d";
  auto output = [this, group, bias, m, n, to_float, args, out_shape, last_shape,
                 name](const te::Tensor& result) {
    const te::Tensor base = to_float ? to_float(result) : result;
    auto read = [out_shape](const te::Tensor& t, const std::vector<Var>& i) {
      return t(RowOf(i, out_shape), i.back());
    };
    te::Tensor value = GroupValue(group, base, bias, -1, read, args);
    return te::compute(
        {I(m), I(n)},
        [&](Var y, Var x) {
          std::vector<Expr> index = Unflatten(y, last_shape);
          index.push_back(x);
          return value(index);
        },
        name);
  };
  // The template's pass then finds the stand-in's inputs in `args`.
  output(te::placeholder({I(m), I(n)}, result_type, "stand_in"));
  return {output, args->tensors};
}

Expr ModelEmitter::RowOf(const std::vector<Var>& i, const std::vector<int64_t>& shape) {
  Expr row = I(0);
  for (size_t d = 0; d + 1 < shape.size(); ++d) {
    if (shape[d] != 1) row = row * I(shape[d]) + i[d];
  }
  return row;
}

std::vector<Expr> ModelEmitter::Unflatten(const Var& row, const std::vector<int64_t>& shape) {
  std::vector<Expr> index(shape.size() - 1, I(0));
  Expr rest = row;
  int64_t inner = 1;
  for (size_t d = shape.size() - 1; d-- > 0;) {
    if (shape[d] == 1) continue;
    index[d] = inner == 1 && graph::NumElements(shape) / shape.back() == shape[d]
                   ? rest
                   : ir::floormod(ir::floordiv(rest, I(inner)), I(shape[d]));
    inner *= shape[d];
  }
  return index;
}

void ModelEmitter::EmitBatchMatmul(const GroupPlan& plan, const std::vector<const Node*>& group) {
  const Node& node = *group[0];
  int a = node.inputs[0], bv = node.inputs[1];
  const auto& as = g_.values[a].shape;
  const auto& bs = g_.values[bv].shape;
  const int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
  const int64_t batch = graph::NumElements(as) / (m * k);
  const task::Task* task = plan.task.get();
  const space::ConfigEntity& config = *plan.config;
  int b3 = Alias(TensorOf(bv), {batch, k, n}, g_.values[bv].name + "_3d");
  int a3 = Alias(TensorOf(a), {batch, m, k}, g_.values[a].name + "_3d");
  int raw =
      NewTensor(node.name + "_bmm", DLType(graph::DType::kFloat32), {batch, m, n}, kNewBuffer);
  AddKernel(node.name, "batch_matmul", task->Instantiate(config), {a3, b3}, {raw});
  const Value& out = g_.values[node.outputs[0]];
  Epilogue(group, Alias(raw, out.shape, node.name + "_nd"), -1, 0, {}, out.shape);
}

}  // namespace driver
}  // namespace tessera
