// The emitter's int8 convolutions (planned by plan_conv_int8.cc): a kernel quantizes the float
// input and packs it into int32 words of four channels; the int8 template sums the byte products
// exactly and its output stage scales the sums back to the float convolution's value,
// (Σ x·w − zero point × Σ w) × input scale × weight scale, before the group's bias and chain.
#include <functional>

#include "compiler/driver/emitter.h"
#include "compiler/ir/op.h"
#include "compiler/task/blocked_layout.h"
#include "compiler/topi/conv2d_nchwc_x86.h"

namespace tessera {
namespace driver {
namespace {

using ir::DataType;
using ir::Expr;
using ir::Var;

// Where byte `b` of word `i` comes from: the float value, and whether the channel exists (a
// channel past the input's, padding it to whole words, holds the zero point; undefined: all do).
struct ByteSource {
  Expr value;
  Expr exists;
};

// The input quantized to uint8 and packed four channels to an int32 word.
te::Tensor QuantizedWords(const std::function<ByteSource(const std::vector<Var>&, int)>& byte,
                          const std::vector<int64_t>& words_shape, float scale, int64_t zero,
                          const std::string& name) {
  return te::compute(
      ShapeExprs(words_shape),
      [&](const std::vector<Var>& i) {
        // In int32 arithmetic (16 lanes to a vector): the top byte counts as signed, which is
        // the word's two's complement.
        Expr word = I(0);
        for (int b = 0; b < 4; ++b) {
          const ByteSource source = byte(i, b);
          const Expr zero_value = ir::FloatImm(DataType::Float(32), static_cast<double>(zero));
          Expr q = ir::round(source.value / ir::FloatImm(DataType::Float(32), scale)) + zero_value;
          q = ir::min(ir::max(q, ir::const_like(q, 0)), ir::const_like(q, 255));
          if (source.exists.defined()) q = ir::select(source.exists, q, zero_value);
          if (b == 3) q = ir::select(q >= ir::const_like(q, 128), q - ir::const_like(q, 256), q);
          word = word + ir::cast(DataType::Int(32), q) * I(int64_t{1} << (8 * b));
        }
        return word;
      },
      name);
}

// Per output channel: the zero point's share of the sums (input zero point × Σ w) and the
// scale that turns the corrected sums into the float convolution (input scale × weight scale).
struct OutputScaling {
  std::vector<int32_t> correction;
  std::vector<float> scale;
};

OutputScaling OutputScalingOf(const graph::QuantizedForm& wq, float input_scale, int64_t input_zero,
                              const topi::Conv2dShape& sh) {
  OutputScaling out;
  const int64_t per_k = sh.c * sh.r * sh.s;
  for (int64_t k = 0; k < sh.k; ++k) {
    int64_t sum = 0;
    for (int64_t j = 0; j < per_k; ++j) sum += static_cast<int64_t>(wq.values->At(k * per_k + j));
    out.correction.push_back(static_cast<int32_t>(input_zero * sum));
    out.scale.push_back(input_scale *
                        static_cast<float>(wq.scale->At(wq.scale->NumElements() == 1 ? 0 : k)));
  }
  return out;
}

}  // namespace

// The input words of `conv` (planned in `plan`, `ic_words` words to a block): once per value
// and block, since a block's input and its downsample read the same words. The float input is
// read in blocks of four channels per word; with a channel count of no multiple of four (a
// 3-channel stem), in its plain layout, the missing channels holding the zero point.
int ModelEmitter::Int8InputWords(const GroupPlan& plan, const Node& conv, int64_t ic_words) {
  const topi::Conv2dShape& sh = plan.conv;
  const int x = conv.inputs[0];
  const int64_t in_block = plan.in_block, words = (sh.c + 3) / 4;
  auto [known, inserted] = quantized_words_.emplace(std::make_pair(x, in_block), -1);
  if (!inserted) return known->second;
  const std::vector<int64_t> words_shape = {sh.n, words / ic_words, sh.h, sh.w, ic_words};
  const std::vector<int64_t> x_shape = {sh.n, sh.c / in_block, sh.h, sh.w, in_block};
  te::Tensor xb = te::placeholder(ShapeExprs(x_shape), DataType::Float(32), "x");
  auto byte = [&](const std::vector<Var>& i, int b) -> ByteSource {
    if (in_block == 4 * ic_words) return {xb(i[0], i[1], i[2], i[3], i[4] * I(4) + I(b)), Expr()};
    TESSERA_INTERNAL_CHECK(in_block == 1) << conv.name << ": int8 input in blocks of " << in_block;
    const Expr channel = (i[1] * I(ic_words) + i[4]) * I(4) + I(b);
    return {xb(i[0], ir::min(channel, I(sh.c - 1)), i[2], i[3], I(0)), channel < I(sh.c)};
  };
  te::Tensor quantized = QuantizedWords(byte, words_shape, plan.input_scale, plan.input_zero,
                                        conv.name + "_quantized");
  known->second =
      NewTensor(conv.name + "_words", runtime::MakeDataType(kDLInt, 32), words_shape, kNewBuffer);
  AddKernel(conv.name + "_quantize", "quantize_pack", Default(quantized, conv.name),
            {xb, quantized}, {BlockedOf(x, in_block)}, {known->second});
  return known->second;
}

void ModelEmitter::EmitConvInt8(const GroupPlan& plan, const std::vector<const Node*>& group) {
  const Node& conv = *group[0];
  const topi::Conv2dShape& sh = plan.conv;
  const int bias = conv.inputs.size() > 2 ? conv.inputs[2] : -1;
  const int64_t ic_words = topi::Conv2dNCHWcBlocks(*plan.config).ic_bn, oc_bn = plan.out_block;
  // The template's shape: channels padded to whole words (the padding's weights are zero).
  topi::Conv2dShape padded = sh;
  padded.c = (sh.c + 3) / 4 * 4;
  const int words_id = Int8InputWords(plan, conv, ic_words);
  // The weights as words, and the per-channel correction and scale of the output stage.
  const graph::TensorData& weights = *g_.values[conv.inputs[1]].data;
  const graph::QuantizedForm& wq = *weights.quantized;
  std::vector<float> weight_bytes(static_cast<size_t>(sh.k * padded.c * sh.r * sh.s), 0.f);
  const int64_t per_channel = sh.r * sh.s, per_k = sh.c * per_channel;
  for (int64_t i = 0; i < wq.values->NumElements(); ++i) {
    weight_bytes[i / per_k * padded.c * per_channel + i % per_k] =
        static_cast<float>(wq.values->At(i));
  }
  const std::vector<int32_t> packed =
      task::ToOIHWioWords(weight_bytes, {sh.k, padded.c, sh.r, sh.s}, ic_words, oc_bn);
  const std::vector<int64_t> pw_shape = {
      sh.k / oc_bn, padded.c / 4 / ic_words, sh.r, sh.s, ic_words, oc_bn};
  const int pw = AddParam(g_.values[conv.inputs[1]].name + "_int8_words",
                          HostArray(pw_shape, runtime::MakeDataType(kDLInt, 32), packed.data(),
                                    packed.size() * sizeof(int32_t)));
  const OutputScaling scaling = OutputScalingOf(wq, plan.input_scale, plan.input_zero, sh);
  const int correction_id =
      AddParam(conv.name + "_zero_point_sums",
               HostArray({sh.k}, runtime::MakeDataType(kDLInt, 32), scaling.correction.data(),
                         scaling.correction.size() * sizeof(int32_t)));
  const int scale_id = AddParam(
      conv.name + "_scales", HostArray({sh.k}, DLType(graph::DType::kFloat32), scaling.scale.data(),
                                       scaling.scale.size() * sizeof(float)));
  Args args;
  te::Tensor correction_t = te::placeholder({I(sh.k)}, DataType::Int(32), "zero_point_sums");
  te::Tensor scale_t = te::placeholder({I(sh.k)}, DataType::Float(32), "scales");
  args.tensors = {correction_t, scale_t};
  args.ids = {correction_id, scale_id};
  const std::vector<int64_t> blocked_shape = {sh.n, sh.k / oc_bn, sh.oh(), sh.ow(), oc_bn};
  const std::string name = conv.name + "_dequantized";
  auto to_float = [correction_t, scale_t, oc_bn, blocked_shape, name](const te::Tensor& sums) {
    return te::compute(
        ShapeExprs(blocked_shape),
        [&](const std::vector<Var>& i) {
          Expr k = i[1] * I(oc_bn) + i[4];
          return ir::cast(DataType::Float(32), sums(E(i)) - correction_t(k)) * scale_t(k);
        },
        name);
  };
  const topi::OutputEpilogue epilogue =
      FusedEpilogue(group, bias, oc_bn, blocked_shape, DataType::Int(32), to_float, &args);
  const uint32_t pad_word = 0x01010101u * static_cast<uint32_t>(plan.input_zero);
  const topi::ScheduledOp op =
      topi::Conv2dNCHWcInt8X86(padded, *plan.config, static_cast<int32_t>(pad_word), &epilogue);
  AddFusedKernel(group, "conv2d_NCHWc_int8", op, {words_id, pw}, args, oc_bn);
}

}  // namespace driver
}  // namespace tessera
