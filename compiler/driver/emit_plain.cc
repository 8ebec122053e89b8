// The emitter's plain groups (tensor expressions, default schedule), blocked pooling,
// concatenation and channel shuffle, and reshapes that alias their input.
#include "compiler/driver/channel_shuffle.h"
#include "compiler/driver/emitter.h"

namespace tessera {
namespace driver {

using graph::Node;
using graph::Value;
using ir::Expr;
using ir::Var;

void ModelEmitter::EmitPoolBlocked(const GroupPlan& plan, const std::vector<const Node*>& group) {
  const Node& node = *group[0];
  const int x = node.inputs[0], out_value = group.back()->outputs[0];
  const int64_t bn = plan.in_block;
  const int id = BlockedOf(x, bn);
  const auto& xs = g_.values[x].shape;
  te::Tensor in = te::placeholder(ShapeExprs(BlockedShape(xs, bn)), ir::DataType::Float(32), "in0");
  te::Tensor pooled = PoolNCHWc(g_, node, in, xs);
  const Value& v = g_.values[out_value];
  // The chain reads the pooled vectors through their plain indices, as a blocked concat's does.
  Args chain;
  te::Tensor result = group.size() == 1
                          ? pooled
                          : ToBlocked(GroupValue(group, pooled, -1, 1, BlockedRead(bn), &chain), bn,
                                      v.name + "_NCHWc");
  int out = NewBlockedTensor(out_value, bn, v.name + "_NCHWc");
  value_blocked_[out_value][bn] = out;
  std::vector<te::Tensor> args = {in};
  args.insert(args.end(), chain.tensors.begin(), chain.tensors.end());
  args.push_back(result);
  std::vector<int> ids = {id};
  ids.insert(ids.end(), chain.ids.begin(), chain.ids.end());
  AddKernel(GroupName(group), node.op, DefaultSchedule(result), args, ids, {out});
}

void ModelEmitter::EmitConcatBlocked(const GroupPlan& plan, const std::vector<const Node*>& group) {
  const Node& node = *group[0];
  const int out_value = group.back()->outputs[0];
  const int64_t bn = plan.in_block;
  std::vector<te::Tensor> ins;
  std::vector<int> ids;
  std::vector<int64_t> first_block;  // each input's first output block
  int64_t blocks = 0;
  for (size_t k = 0; k < node.inputs.size(); ++k) {
    const auto& xs = g_.values[node.inputs[k]].shape;
    ins.push_back(te::placeholder(ShapeExprs(BlockedShape(xs, bn)), ir::DataType::Float(32),
                                  "in" + std::to_string(k)));
    ids.push_back(BlockedOf(node.inputs[k], bn));
    first_block.push_back(blocks);
    blocks += xs[1] / bn;
  }
  const Value& v = g_.values[out_value];
  te::Tensor concat = te::compute(
      ShapeExprs({v.shape[0], blocks, v.shape[2], v.shape[3], bn}),
      [&](const std::vector<Var>& i) {
        // The condition is the block's, the same for every lane: only the chosen input is
        // read, a whole vector at a time.
        auto read = [&](size_t k) {
          return ins[k](i[0], i[1] - I(first_block[k]), i[2], i[3], i[4]);
        };
        Expr value = read(ins.size() - 1);
        for (size_t k = ins.size() - 1; k-- > 0;) {
          value = ir::if_then_else(i[1] < I(first_block[k + 1]), read(k), value);
        }
        return value;
      },
      node.name + "_NCHWc");
  // The chain reads the copy through its plain indices, which simplify back to the block's.
  Args chain;
  te::Tensor result = group.size() == 1
                          ? concat
                          : ToBlocked(GroupValue(group, concat, -1, 1, BlockedRead(bn), &chain), bn,
                                      v.name + "_NCHWc");
  int out = NewBlockedTensor(out_value, bn, v.name + "_NCHWc");
  value_blocked_[out_value][bn] = out;
  std::vector<te::Tensor> args = ins;
  args.insert(args.end(), chain.tensors.begin(), chain.tensors.end());
  args.push_back(result);
  ids.insert(ids.end(), chain.ids.begin(), chain.ids.end());
  AddKernel(GroupName(group), node.op, DefaultSchedule(result), args, ids, {out});
}

// Output lane l of block ob is channel c = ob*bn + l, read from concatenated channel
// (c % g) * (C/g) + c / g. When the block holds whole groups (bn = g*u), with l = j*g + p that
// is channel u*q + j of the concatenation for q = p*(C/bn) + ob: lane (q % g)*u + j of its block
// q / g. So for each p the lanes j read one contiguous run of an input's block and write every
// g-th lane: the lane loop is split by g and p unrolled, leaving a loop over j that LLVM
// vectorizes as an interleaved store, with no division and no choice of input per element.
// A block that splits the groups (29 channels of 58) has no such runs: the lanes move out of the
// innermost loop, so that their division and choice of input are made once per lane and row,
// and the loop over a row's pixels copies with a stride of one block.
void ModelEmitter::EmitShuffleBlocked(const GroupPlan& plan,
                                      const std::vector<const Node*>& group) {
  const ChannelShuffle shuffle = *MatchChannelShuffle(g_, group);
  const int out_value = group.back()->outputs[0];
  const int64_t bn = plan.in_block, groups = shuffle.groups;
  const bool whole_groups = bn % groups == 0;
  std::vector<te::Tensor> ins;
  std::vector<int> ids;
  std::vector<int64_t> first_block, source_block;  // each input's first block: output, value
  int64_t blocks = 0;
  for (size_t k = 0; k < shuffle.sources.size(); ++k) {
    const ShuffleSource& source = shuffle.sources[k];
    const auto& xs = g_.values[source.value].shape;
    ins.push_back(te::placeholder(ShapeExprs(BlockedShape(xs, bn)), ir::DataType::Float(32),
                                  "in" + std::to_string(k)));
    ids.push_back(BlockedOf(source.value, bn));
    first_block.push_back(blocks);
    source_block.push_back(source.first_channel / bn);
    blocks += source.channels / bn;
  }
  const Value& v = g_.values[out_value];
  te::Tensor shuffled = te::compute(
      ShapeExprs({v.shape[0], blocks, v.shape[2], v.shape[3], bn}),
      [&](const std::vector<Var>& i) {
        Expr block, lane;
        if (whole_groups) {
          const int64_t lanes_per_group = bn / groups;
          const Expr p = i[4] % I(groups), j = i[4] / I(groups);
          const Expr q = p * I(blocks) + i[1];
          block = q / I(groups);
          lane = (q % I(groups)) * I(lanes_per_group) + j;
        } else {
          const Expr c = i[1] * I(bn) + i[4];
          const Expr channel = (c % I(groups)) * I(shuffle.channels / groups) + c / I(groups);
          block = channel / I(bn);
          lane = channel % I(bn);
        }
        auto read = [&](size_t k) {
          return ins[k](i[0], block - I(first_block[k]) + I(source_block[k]), i[2], i[3], lane);
        };
        Expr value = read(ins.size() - 1);
        for (size_t k = ins.size() - 1; k-- > 0;) {
          value = ir::if_then_else(block < I(first_block[k + 1]), read(k), value);
        }
        return value;
      },
      v.name + "_NCHWc");
  te::Schedule schedule = te::create_schedule({shuffled});
  te::Stage stage = schedule[shuffled];
  ir::IterVar rows = stage.fuse(stage.fuse(stage.axis(0), stage.axis(1)), stage.axis(2));
  if (whole_groups) {
    auto [run, group_lane] = stage.split(stage.axis(4), I(groups));
    stage.unroll(group_lane);
    rows = stage.fuse(rows, stage.axis(3));
    (void)run;
  } else {
    stage.reorder({rows, stage.axis(4), stage.axis(3)});
  }
  // One parallel launch costs microseconds: small shuffles stay on the calling thread.
  if (graph::NumElements(v.shape) >= 4096) stage.parallel(rows);
  int out = NewBlockedTensor(out_value, bn, v.name + "_NCHWc");
  value_blocked_[out_value][bn] = out;
  std::vector<te::Tensor> args = ins;
  args.push_back(shuffled);
  AddKernel(GroupName(group), shuffle.concat->op, schedule, args, ids, {out});
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
