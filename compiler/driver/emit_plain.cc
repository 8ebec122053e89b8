// The emitter's plain groups (tensor expressions, default schedule), blocked pooling and
// reshapes that alias their input.
#include "compiler/driver/emitter.h"

namespace tessera {
namespace driver {

using graph::Node;
using graph::Value;
using ir::Expr;
using ir::Var;

void ModelEmitter::EmitPoolBlocked(const GroupPlan& plan, const Node& node) {
  const int x = node.inputs[0], out_value = node.outputs[0];
  const int64_t bn = plan.in_block;
  const int id = BlockedOf(x, bn);
  const auto& xs = g_.values[x].shape;
  te::Tensor in = te::placeholder(ShapeExprs({xs[0], xs[1] / bn, xs[2], xs[3], bn}),
                                  ir::DataType::Float(32), "in0");
  te::Tensor result = PoolNCHWc(g_, node, in, xs);
  const Value& v = g_.values[out_value];
  int out = NewBlockedTensor(out_value, bn, v.name + "_NCHWc");
  value_blocked_[out_value][bn] = out;
  AddKernel(node.name, node.op, DefaultSchedule(result), {in, result}, {id}, {out});
}

void ModelEmitter::EmitPlain(const std::vector<const Node*>& group) {
  const Node& anchor = *group[0];
  for (size_t k = 0; k < (group.size() == 1 ? anchor.outputs.size() : 1); ++k) {
    Args args;
    te::Tensor result = ComputeNode(g_, anchor, Operands(anchor, &args), k);
    result = Chain(group, 1, result, &args);
    int out_value = group.size() == 1 ? anchor.outputs[k] : group.back()->outputs[0];
    int out = KernelOutput(out_value, &result);
    if (kernels_.gpu() && result.shape().empty()) {
      // A scalar value: the GPU kernel writes it as one element through a [1] view.
      const te::Tensor scalar = result;
      result = te::compute(
          {I(1)}, [&](const std::vector<Var>&) { return scalar(std::vector<Expr>{}); },
          scalar.name() + "_1");
      out = Alias(out, {1}, exec_.tensors[out].name + "_1");
    }
    args.tensors.push_back(result);
    AddKernel(GroupName(group), anchor.op, Default(result, GroupName(group)), args.tensors,
              args.ids, {out});
  }
}

void ModelEmitter::EmitReshapeAlias(const Node& node) {
  const Value& out = g_.values[node.outputs[0]];
  value_tensor_[node.outputs[0]] = Alias(TensorOf(node.inputs[0]), out.shape, out.name);
}

}  // namespace driver
}  // namespace tessera
