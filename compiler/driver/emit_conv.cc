// The emitter's convolutions: blocked x86 templates (direct, Winograd, depthwise) and CUDA.
#include "compiler/driver/emitter.h"

#include "compiler/task/blocked_layout.h"
#include "compiler/topi/conv2d_nchwc_x86.h"
#include "compiler/topi/conv2d_winograd_x86.h"
#include "compiler/topi/depthwise_conv2d_nchwc_x86.h"

namespace tessera {
namespace driver {

using graph::Node;
using graph::Value;
using ir::Expr;
using ir::Var;

void ModelEmitter::EmitConv(const GroupPlan& plan, const std::vector<const Node*>& group) {
  const Node& conv = *group[0];
  const bool depthwise = plan.path == KernelPath::kDepthwiseCPU;
  const bool winograd = plan.path == KernelPath::kWinogradCPU;
  int x = conv.inputs[0], w = conv.inputs[1];
  int bias = conv.inputs.size() > 2 ? conv.inputs[2] : -1;
  const topi::Conv2dShape& shape = plan.conv;
  const int64_t ic_bn = plan.in_block, oc_bn = plan.out_block;
  const int packed_x = BlockedOf(x, ic_bn);
  const bool input_halo = plan.input_halo;
  const std::vector<float> weights = Floats(*g_.values[w].data);
  std::vector<float> packed;
  std::vector<int64_t> pw_shape;
  if (depthwise) {
    packed = task::ToNCHWc(weights, {1, shape.c, shape.r, shape.s}, ic_bn);
    pw_shape = {shape.c / ic_bn, shape.r, shape.s, ic_bn};
  } else if (winograd) {
    const int64_t m = topi::WinogradTile(*plan.config), alpha = m + 2;
    packed = topi::WinogradWeights(weights, shape, m, ic_bn, oc_bn);
    pw_shape = {alpha, alpha, shape.k / oc_bn, shape.c / ic_bn, ic_bn, oc_bn};
  } else {
    packed = task::ToOIHWio(weights, {shape.k, shape.group_c(), shape.r, shape.s}, ic_bn, oc_bn);
    pw_shape = {shape.k / oc_bn, shape.group_c() / ic_bn, shape.r, shape.s, ic_bn, oc_bn};
  }
  const char* weight_form = depthwise ? "_packed" : winograd ? "_winograd" : "_OIHWio";
  int pw = AddParam(g_.values[w].name + weight_form,
                    HostArray(pw_shape, DLType(graph::DType::kFloat32), packed.data(),
                              packed.size() * sizeof(float)));
  std::vector<int64_t> blocked_shape = {shape.n, shape.k / oc_bn, shape.oh(), shape.ow(), oc_bn};
  const std::string kernel = depthwise          ? "depthwise_conv2d_NCHWc"
                             : winograd         ? "conv2d_winograd_NCHWc"
                             : shape.groups > 1 ? "group_conv2d_NCHWc"
                                                : "conv2d_NCHWc";
  // The template's op: `epilogue` fused, the data read in its halo where it has one.
  auto instantiate = [&](const topi::OutputEpilogue* epilogue) {
    if (depthwise) return topi::DepthwiseConv2dNCHWcX86(shape, *plan.config, epilogue);
    if (winograd) return topi::Conv2dWinogradX86(shape, *plan.config, epilogue, input_halo);
    return topi::Conv2dNCHWcX86(shape, *plan.config, epilogue, input_halo);
  };
  if (plan.fused) {
    // The epilogue runs in the template's output stage, on the accumulators: one kernel.
    Args args;
    const topi::OutputEpilogue epilogue =
        FusedEpilogue(group, bias, oc_bn, blocked_shape, ir::DataType::Float(32), nullptr, &args);
    AddFusedKernel(group, kernel, instantiate(&epilogue), {packed_x, pw}, args, oc_bn);
    return;
  }
  // Without bias or chain, Epilogue takes this tensor as the value's when its readers take
  // the block: then it keeps their halo.
  int blocked = bias < 0 && group.size() == 1
                    ? NewBlockedTensor(conv.outputs[0], oc_bn, conv.name + "_NCHWc", plan.raw_halo)
                    : NewTensor(conv.name + "_NCHWc", DLType(graph::DType::kFloat32), blocked_shape,
                                kNewBuffer);
  AddKernel(conv.name, kernel, instantiate(nullptr), {packed_x, pw}, {blocked});
  Epilogue(group, blocked, bias, 1, BlockedRead(oc_bn), blocked_shape, oc_bn);
}

topi::OutputEpilogue ModelEmitter::FusedEpilogue(
    const std::vector<const Node*>& group, int bias, int64_t oc_bn,
    const std::vector<int64_t>& blocked_shape, ir::DataType result_type,
    std::function<te::Tensor(const te::Tensor&)> to_float, Args* args) {
  const std::string name = g_.values[group.back()->outputs[0]].name + "_NCHWc";
  auto output = [this, group, bias, oc_bn, to_float, args, name](const te::Tensor& result) {
    const te::Tensor value = to_float ? to_float(result) : result;
    return ToBlocked(GroupValue(group, value, bias, 1, BlockedRead(oc_bn), args), oc_bn, name);
  };
  // The template's pass then finds the stand-in's inputs in `args`.
  output(te::placeholder(ShapeExprs(blocked_shape), result_type, "stand_in"));
  return {output, args->tensors};
}

void ModelEmitter::AddFusedKernel(const std::vector<const Node*>& group, const std::string& kernel,
                                  const topi::ScheduledOp& op, std::vector<int> inputs,
                                  const Args& args, int64_t oc_bn) {
  const int value = group.back()->outputs[0];
  const int out = NewBlockedTensor(value, oc_bn, g_.values[value].name + "_NCHWc");
  value_blocked_[value][oc_bn] = out;
  inputs.insert(inputs.end(), args.ids.begin(), args.ids.end());
  AddKernel(GroupName(group), kernel, op, inputs, {out});
}

bool ModelEmitter::EmitConvCUDA(const GroupPlan& plan, const std::vector<const Node*>& group) {
  const Node& conv = *group[0];
  const int x = conv.inputs[0], w = conv.inputs[1];
  const topi::Conv2dShape& sh = plan.conv;
  const bool depthwise = plan.task->templ().name == std::string("depthwise_conv2d.cuda");
  const int xi = TensorOf(x), wi = TensorOf(w);
  const std::string symbol = Symbol(exec_.nodes.size(), depthwise ? "depthwise_conv2d" : "conv2d");
  if (!AddTemplateKernel(conv, plan.task->Instantiate(*plan.config), symbol)) return false;
  const std::vector<int64_t> shape = {sh.n, sh.k, sh.oh(), sh.ow()};
  const int out = NewTensor(conv.name + "_conv", DLType(graph::DType::kFloat32), shape, kNewBuffer);
  exec_.nodes.push_back({conv.name, symbol, {xi, wi}, {out}});
  Epilogue(group, out, conv.inputs.size() > 2 ? conv.inputs[2] : -1, 1, {}, shape);
  return true;
}

}  // namespace driver
}  // namespace tessera
