// The emitter's int8 convolutions and dense layers (planned by plan_int8.cc): a kernel quantizes
// the float input and packs it into int32 words of four channels (or four elements of a row);
// the int8 template sums the byte products exactly and its output stage scales the sums back to
// the float operator's value, (Σ x·w − zero point × Σ w) × input scale × weight scale, before the
// group's bias and chain.
#include "compiler/driver/emitter.h"
#include "compiler/ir/op.h"
#include "compiler/task/blocked_layout.h"
#include "compiler/topi/conv2d_nchwc_x86.h"
#include "compiler/topi/dense_x86.h"

namespace tessera {
namespace driver {
namespace {

using ir::DataType;
using ir::Expr;
using ir::Var;

// `v` quantized to uint8 by `scale` and `zero` (rounded to nearest-even, saturated), as float.
Expr QuantizedByte(const Expr& v, float scale, int64_t zero) {
  const Expr q = ir::round(v / ir::FloatImm(DataType::Float(32), scale)) +
                 ir::FloatImm(DataType::Float(32), static_cast<double>(zero));
  return ir::min(ir::max(q, ir::const_like(q, 0)), ir::const_like(q, 255));
}

// `x` (float NCHW, `c` channels, read as NCHW1c) quantized to uint8 and packed four channels to
// an int32 word, the channels past `c` (padding it to whole words) holding the zero point.
te::Tensor PaddedChannelWords(const te::Tensor& x, int64_t c, int64_t ic_words,
                              const std::vector<int64_t>& words_shape, float scale, int64_t zero,
                              const std::string& name) {
  return te::compute(
      ShapeExprs(words_shape),
      [&](const std::vector<Var>& i) {
        // In int32 arithmetic (16 lanes to a vector): the top byte counts as signed, which is
        // the word's two's complement.
        Expr word = I(0);
        for (int b = 0; b < 4; ++b) {
          const Expr channel = (i[1] * I(ic_words) + i[4]) * I(4) + I(b);
          Expr q =
              QuantizedByte(x(i[0], ir::min(channel, I(c - 1)), i[2], i[3], I(0)), scale, zero);
          q = ir::select(channel < I(c), q, ir::const_like(q, static_cast<double>(zero)));
          if (b == 3) q = ir::select(q >= ir::const_like(q, 128), q - ir::const_like(q, 256), q);
          word = word + ir::cast(DataType::Int(32), q) * I(int64_t{1} << (8 * b));
        }
        return word;
      },
      name);
}

// int8 weights as the packed int32 words a template reads, with each output channel's share of
// the input's zero point in the sums (input zero point × Σ w) and the scale that turns the
// corrected sums into the float operator's value (input scale × weight scale).
struct WeightWords {
  std::vector<int32_t> packed;
  std::vector<int32_t> correction;
  std::vector<float> scale;
};

// Output channel `k`'s correction and scale, from the sum of its weights.
void AddOutputChannel(WeightWords* w, const graph::QuantizedForm& wq, int64_t k, int64_t sum,
                      float input_scale, int64_t input_zero) {
  w->correction.push_back(static_cast<int32_t>(input_zero * sum));
  w->scale.push_back(input_scale *
                     static_cast<float>(wq.scale->At(wq.scale->NumElements() == 1 ? 0 : k)));
}

// A convolution's weights [K, C, R, S] in words `OIHW[ic]i[oc_bn]o` over `padded_c` channels
// (those past C zero).
WeightWords ConvWeightsOf(const graph::QuantizedForm& wq, const topi::Conv2dShape& sh,
                          int64_t padded_c, int64_t ic_words, int64_t oc_bn, float input_scale,
                          int64_t input_zero) {
  const int64_t per_channel = sh.r * sh.s, per_k = sh.c * per_channel;
  std::vector<float> bytes(static_cast<size_t>(sh.k * padded_c * per_channel), 0.f);
  WeightWords out;
  for (int64_t k = 0; k < sh.k; ++k) {
    int64_t sum = 0;
    for (int64_t j = 0; j < per_k; ++j) {
      const double v = wq.values->At(k * per_k + j);
      bytes[k * padded_c * per_channel + j] = static_cast<float>(v);
      sum += static_cast<int64_t>(v);
    }
    AddOutputChannel(&out, wq, k, sum, input_scale, input_zero);
  }
  out.packed = task::ToOIHWioWords(bytes, {sh.k, padded_c, sh.r, sh.s}, ic_words, oc_bn);
  return out;
}

// A dense layer's weights as W[n, k] bytes (from [k, n], or [n, k] with `trans_b`) in column
// blocks of `bn` words.
WeightWords DenseWeightsOf(const graph::QuantizedForm& wq, bool trans_b, int64_t n, int64_t k,
                           int64_t bn, float input_scale, int64_t input_zero) {
  std::vector<float> w(static_cast<size_t>(n * k));
  WeightWords out;
  for (int64_t r = 0; r < n; ++r) {
    int64_t sum = 0;
    for (int64_t c = 0; c < k; ++c) {
      const double v = wq.values->At(trans_b ? r * k + c : c * n + r);
      w[r * k + c] = static_cast<float>(v);
      sum += static_cast<int64_t>(v);
    }
    AddOutputChannel(&out, wq, r, sum, input_scale, input_zero);
  }
  out.packed = task::ToColumnBlockWords(w, n, k, bn);
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
  const int input = BlockedOf(x, in_block);
  if (in_block == 4 * ic_words) {
    known->second = QuantizedBytesAsWords(input, x_shape, plan, words_shape, conv.name);
    return known->second;
  }
  TESSERA_INTERNAL_CHECK(in_block == 1) << conv.name << ": int8 input in blocks of " << in_block;
  te::Tensor xb = te::placeholder(ShapeExprs(x_shape), DataType::Float(32), "x");
  te::Tensor quantized = PaddedChannelWords(xb, sh.c, ic_words, words_shape, plan.input_scale,
                                            plan.input_zero, conv.name + "_quantized");
  known->second =
      NewTensor(conv.name + "_words", runtime::MakeDataType(kDLInt, 32), words_shape, kNewBuffer);
  AddKernel(conv.name + "_quantize", "quantize_pack", Default(quantized, conv.name),
            {xb, quantized}, {input}, {known->second});
  return known->second;
}

// The input's four consecutive channels (a block of 4 ic words, or four elements of a row) are
// a word's four bytes in memory order: the input quantized to uint8 element for element, in its
// own layout, is the words' buffer. The kernel runs over the elements as one flat array (without
// a halo around the input), so it vectorizes without index arithmetic; computing each word from
// four strided reads ran 4-lane vectors (MobileNetV2's 144-channel 56x56 input: 0.39 ms) and a
// 5-D loop nest recomputed its indices for every vector (0.17 ms for 96 channels).
int ModelEmitter::QuantizedBytesAsWords(int input, const std::vector<int64_t>& shape,
                                        const GroupPlan& plan,
                                        const std::vector<int64_t>& words_shape,
                                        const std::string& name) {
  const bool flat = HaloOf(input) == 0;
  const std::vector<int64_t> bytes_shape =
      flat ? std::vector<int64_t>{graph::NumElements(shape)} : shape;
  te::Tensor x = te::placeholder(ShapeExprs(bytes_shape), DataType::Float(32), "x");
  const float scale = plan.input_scale;
  const int64_t zero = plan.input_zero;
  te::Tensor quantized = te::compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        return ir::cast(DataType::UInt(8), QuantizedByte(x(E(i)), scale, zero));
      },
      name + "_quantized");
  const int bytes =
      NewTensor(name + "_bytes", runtime::MakeDataType(kDLUInt, 8), bytes_shape, kNewBuffer);
  const int read = flat ? Alias(input, bytes_shape, name + "_input_flat") : input;
  AddKernel(name + "_quantize", "quantize_pack", Default(quantized, name), {x, quantized}, {read},
            {bytes});
  return NewTensor(name + "_words", runtime::MakeDataType(kDLInt, 32), words_shape,
                   tensor_buffer_[bytes]);
}

ModelEmitter::Args ModelEmitter::DequantizationArgs(const std::string& name,
                                                    const std::vector<int32_t>& correction,
                                                    const std::vector<float>& scale) {
  const int64_t n = static_cast<int64_t>(scale.size());
  Args args;
  args.tensors = {te::placeholder({I(n)}, DataType::Int(32), "zero_point_sums"),
                  te::placeholder({I(n)}, DataType::Float(32), "scales")};
  args.ids = {AddParam(name + "_zero_point_sums",
                       HostArray({n}, runtime::MakeDataType(kDLInt, 32), correction.data(),
                                 correction.size() * sizeof(int32_t))),
              AddParam(name + "_scales", HostArray({n}, DLType(graph::DType::kFloat32),
                                                   scale.data(), scale.size() * sizeof(float)))};
  return args;
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
  const WeightWords weights =
      ConvWeightsOf(*g_.values[conv.inputs[1]].data->quantized, sh, padded.c, ic_words, oc_bn,
                    plan.input_scale, plan.input_zero);
  const std::vector<int64_t> pw_shape = {
      sh.k / oc_bn, padded.c / 4 / ic_words, sh.r, sh.s, ic_words, oc_bn};
  const int pw =
      AddParam(g_.values[conv.inputs[1]].name + "_int8_words",
               HostArray(pw_shape, runtime::MakeDataType(kDLInt, 32), weights.packed.data(),
                         weights.packed.size() * sizeof(int32_t)));
  Args args = DequantizationArgs(conv.name, weights.correction, weights.scale);
  const te::Tensor correction_t = args.tensors[0], scale_t = args.tensors[1];
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

void ModelEmitter::EmitDenseInt8(const GroupPlan& plan, const std::vector<const Node*>& group) {
  const Node& node = *group[0];
  const int a = node.inputs[0], bw = node.inputs[1];
  const auto& as = g_.values[a].shape;
  const auto& bs = g_.values[bw].shape;
  const bool trans_b = node.op == "Gemm" && node.Int("transB", 0);
  const int64_t k = as.back(), n = trans_b ? bs[0] : bs[1], m = graph::NumElements(as) / k;
  const int bias = node.op == "Gemm" && node.inputs.size() > 2 ? node.inputs[2] : -1;
  const DLDataType i32 = runtime::MakeDataType(kDLInt, 32), f32 = DLType(graph::DType::kFloat32);
  // The input's rows quantized to uint8, four elements to a word.
  const int words = QuantizedBytesAsWords(Alias(TensorOf(a), {m, k}, g_.values[a].name + "_2d"),
                                          {m, k}, plan, {m, k / 4}, node.name);
  // The weights as words in column blocks, each column's correction and scale.
  const int64_t bn = topi::DenseWeightBlock(*plan.config);
  const WeightWords weights = DenseWeightsOf(*g_.values[bw].data->quantized, trans_b, n, k, bn,
                                             plan.input_scale, plan.input_zero);
  const int pw = AddParam(g_.values[bw].name + "_int8_words",
                          HostArray({n / bn, k / 4, bn}, i32, weights.packed.data(),
                                    weights.packed.size() * sizeof(int32_t)));
  Args args = DequantizationArgs(node.name, weights.correction, weights.scale);
  const te::Tensor correction_t = args.tensors[0], scale_t = args.tensors[1];
  const std::string name = node.name + "_dequantized";
  auto to_float = [correction_t, scale_t, m, n, name](const te::Tensor& sums) {
    return te::compute(
        {I(m), I(n)},
        [&](Var y, Var x) {
          return ir::cast(DataType::Float(32), sums(y, x) - correction_t(x)) * scale_t(x);
        },
        name);
  };
  const topi::OutputEpilogue epilogue =
      FusedDenseEpilogue(group, bias, m, n, DataType::Int(32), to_float, &args);
  const Value& last = g_.values[group.back()->outputs[0]];
  const int raw = NewTensor(last.name + "_2d", f32, {m, n}, kNewBuffer);
  std::vector<int> inputs = {words, pw};
  inputs.insert(inputs.end(), args.ids.begin(), args.ids.end());
  AddKernel(GroupName(group), "dense_int8", topi::DenseInt8X86({m, n, k}, *plan.config, &epilogue),
            inputs, {raw});
  value_tensor_[group.back()->outputs[0]] = Alias(raw, last.shape, last.name);
}

}  // namespace driver
}  // namespace tessera
