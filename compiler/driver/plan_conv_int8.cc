// The planner's int8 convolutions: a convolution of a QDQ model (its input quantized to uint8 and
// dequantized, its weights int8 with zero points 0, dequantized at compile time) runs through
// conv2d_NCHWc_int8.x86 where the target has a byte dot product. The kernel computes the same
// float value the float template would (the products exact in int32, then scaled), so the
// group's bias and elementwise chain run unchanged in its output stage and every reader of the
// output is unchanged.
#include <algorithm>

#include "compiler/driver/planner.h"
#include "compiler/driver/vector_unit.h"
#include "compiler/topi/conv2d_nchwc_x86.h"

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

// Constant weights dequantized from int8 with zero points 0, per tensor or per output channel.
bool QuantizedWeights(const graph::Value& w) {
  if (!w.is_constant() || !w.data->quantized) return false;
  const graph::QuantizedForm& q = *w.data->quantized;
  const int64_t scales = q.scale->NumElements();
  return q.values->dtype == graph::DType::kInt8 && AllZero(q.zero_point) &&
         (scales == 1 || (q.axis == 0 && scales == w.shape[0]));
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

bool Planner::PlanConvInt8(GroupPlan& gp, const std::vector<const Node*>& group,
                           const ConvPlan& cp) {
  const Node& conv = *group[0];
  const topi::Conv2dShape& sh = cp.shape;
  float input_scale = 1;
  int64_t input_zero = 0;
  if (!strategy_.int8_conv || !byte_dot_product_ || cp.depthwise || cp.winograd || sh.groups != 1 ||
      sh.c % 4 != 0 || !QuantizedInput(conv.inputs[0], &input_scale, &input_zero) ||
      !QuantizedWeights(g_.values[conv.inputs[1]])) {
    return false;
  }
  const Target target(options_.target);
  const space::ConfigSpace space =
      topi::Conv2dNCHWcX86Space(topi::Conv2dWords(sh), VectorUnitOf(target));
  // Input words of the block the producer writes (four channels to a word) where that is a
  // choice: the input is then read as written, no repacking pass.
  const int64_t producer_block = plan_.values[conv.inputs[0]].block;
  const space::ConfigEntity config =
      producer_block % 4 == 0 && producer_block > 0
          ? topi::Conv2dNCHWcWithInputBlock(space, space.Fallback(), producer_block / 4)
          : space.Fallback();
  const topi::Conv2dBlocks words = topi::Conv2dNCHWcBlocks(config);
  const int value = group.back()->outputs[0];
  if (OutputBlock(value, words.oc_bn) != words.oc_bn) return false;
  gp.path = KernelPath::kConvInt8X86;
  gp.input_scale = input_scale;
  gp.input_zero = input_zero;
  gp.task = cp.task;  // the float workload it replaces: what the coverage line counts
  gp.config = config;
  gp.source = std::string(strategy_.int8_conv) + " fallback";
  gp.chosen = config.ToString();
  gp.conv = sh;
  gp.in_block = 4 * words.ic_bn;  // the float input's block: four channels to a word
  gp.out_block = words.oc_bn;
  gp.fused = true;
  NoteConfig(conv, gp);
  Blocked(conv.inputs[0], gp.in_block);
  ReadExternals(group, conv.inputs.size() > 2 ? conv.inputs[2] : -1, /*anchor=*/false);
  Write(value, gp.out_block);
  return true;
}

}  // namespace driver
}  // namespace tessera
