// The planner's int8 operators: a convolution or dense layer of a QDQ model (its input quantized
// to uint8 and dequantized, its weights int8 with zero points 0, dequantized at compile time)
// runs through conv2d_NCHWc_int8.x86 or dense_int8.x86 where the target has a byte dot product,
// configured by that template's records (it is the model's task, so tuning the model tunes it).
// The kernel computes the same float value the float template would (the products exact in
// int32, then scaled), so the group's bias and elementwise chain run unchanged in its output
// stage and every reader of the output is unchanged.
#include "compiler/driver/planner.h"

namespace tessera {
namespace driver {
namespace {

bool AllZero(const std::shared_ptr<const graph::TensorData>& t) {
  if (!t) return true;
  for (int64_t i = 0; i < t->NumElements(); ++i) {
    if (t->At(i) != 0) return false;
  }
  return true;
}

// Constant weights dequantized from int8 with zero points 0, per tensor or per output channel
// (along `channel_axis`).
bool QuantizedWeights(const graph::Value& w, int64_t channel_axis = 0) {
  if (!w.is_constant() || !w.data->quantized) return false;
  const graph::QuantizedForm& q = *w.data->quantized;
  const int64_t scales = q.scale->NumElements();
  return q.values->dtype == graph::DType::kInt8 && AllZero(q.zero_point) &&
         (scales == 1 || (q.axis == channel_axis && scales == w.shape[channel_axis]));
}

}  // namespace

bool Planner::QuantizedInput(int value, float* scale, int64_t* zero) const {
  const int p = producer_[value];
  if (p < 0 || g_.nodes[p].op != "QuantizeDequantize") return false;
  const Node& qdq = g_.nodes[p];
  const int s = qdq.inputs[1];
  if (!IsParam(s) || g_.values[s].data->NumElements() != 1) return false;
  *scale = static_cast<float>(g_.values[s].data->At(0));
  *zero = 0;  // uint8 with zero point 0 when it has none
  if (qdq.Input(2) < 0) return true;
  const graph::Value& z = g_.values[qdq.Input(2)];
  if (!z.is_constant() || z.dtype != graph::DType::kUInt8 || z.data->NumElements() != 1) {
    return false;
  }
  *zero = static_cast<int64_t>(z.data->At(0));
  return true;
}

int Planner::GroupOutput(const Node& anchor) const {
  int out = anchor.outputs[0];
  for (const Node& node : g_.nodes) {
    if (node.group == anchor.group) out = node.outputs[0];
  }
  return out;
}

void Planner::ConsiderInt8(ConvPlan& plan, const Node& conv) {
  const topi::Conv2dShape& sh = plan.shape;
  // The int8 template writes its output stage's float value blocked, in the block it computes.
  if (!strategy_.int8_conv || !byte_dot_product_ || sh.groups != 1 ||
      !MayWriteBlocked(GroupOutput(conv)) ||
      !QuantizedInput(conv.inputs[0], &plan.input_scale, &plan.input_zero) ||
      !QuantizedWeights(g_.values[conv.inputs[1]])) {
    return;
  }
  // The padding holds the zero point; without padding the kernel is the same for any. Channels
  // of no multiple of four (a 3-channel stem) are padded to whole words with zero weights: the
  // template's work is then that of the padded channels.
  const int64_t zero = sh.pad > 0 ? plan.input_zero : 0;
  const int64_t channels = (sh.c + 3) / 4 * 4;
  plan.task =
      MakeTask(strategy_.int8_conv,
               {sh.n, channels, sh.h, sh.w, sh.k, sh.r, sh.s, sh.stride, sh.pad, zero}, "uint8");
  plan.int8 = plan.task != nullptr;
}

void Planner::PlanConvInt8(GroupPlan& gp, const std::vector<const Node*>& group,
                           const ConvPlan& cp) {
  const Node& conv = *group[0];
  gp.path = KernelPath::kConvInt8CPU;
  gp.input_scale = cp.input_scale;
  gp.input_zero = cp.input_zero;
  gp.fused = true;
  NoteConfig(conv, gp);
  Blocked(conv.inputs[0], gp.in_block);
  ReadExternals(group, conv.inputs.size() > 2 ? conv.inputs[2] : -1, /*anchor=*/false);
  // Written in the template's block: readers' convolutions are planned to read it where they
  // can (OutputBlock), and one that takes another block repacks it.
  const int value = group.back()->outputs[0];
  OutputBlock(value, gp.out_block);
  Write(value, gp.out_block);
}

bool Planner::PlanDenseInt8(GroupPlan& gp, const std::vector<const Node*>& group, int64_t m,
                            int64_t n, int64_t k, bool trans_b) {
  const Node& node = *group[0];
  const int a = node.inputs[0];
  if (!strategy_.int8_dense || !strategy_.fused_dense_epilogue || !byte_dot_product_ ||
      k % 4 != 0 || !QuantizedInput(a, &gp.input_scale, &gp.input_zero) ||
      !QuantizedWeights(g_.values[node.inputs[1]], trans_b ? 0 : 1)) {
    return false;
  }
  gp.task = MakeTask(strategy_.int8_dense, {m, n, k}, "uint8");
  if (!gp.task) return false;
  gp.path = KernelPath::kDenseInt8CPU;
  Configure(node, gp);
  Plain(a);
  // The output stage scales the sums back to floats: the group's kernel always has one.
  gp.fused = true;
  ReadExternals(group, node.op == "Gemm" && node.inputs.size() > 2 ? node.inputs[2] : -1,
                /*anchor=*/false);
  Write(group.back()->outputs[0], 0);
  return true;
}

}  // namespace driver
}  // namespace tessera
