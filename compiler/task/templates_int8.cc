#include "compiler/task/templates_int8.h"

#include <algorithm>
#include <cmath>

#include "compiler/ir/op.h"
#include "compiler/support/error.h"
#include "compiler/task/blocked_layout.h"
#include "compiler/te/tensor.h"
#include "compiler/topi/conv2d_nchwc_x86.h"
#include "compiler/topi/dense_x86.h"

namespace tessera {
namespace task {
namespace {

// (N,C,H,W,K,R,S,stride,pad,zero_point): the convolution's shape.
topi::Conv2dShape Int8ConvShapeOf(const TaskArgs& args) {
  const auto& v = args.ints;
  return {v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]};
}

int64_t ZeroPointOf(const TaskArgs& args) { return args.ints[9]; }

// The byte the padding holds, four times in a word.
int32_t PadWord(const TaskArgs& args) {
  return static_cast<int32_t>(0x01010101u * static_cast<uint32_t>(ZeroPointOf(args)));
}

// The output stage a model's int8 convolution runs on its sums, as its task times it: each
// output channel's sums (less the zero point's share, 0 here) scaled back to floats, a ReLU, and
// the next operator's uint8 quantize-dequantize pair, whose range tops out at 4. The scales put
// sums of random bytes (about 147 × 73 × sqrt(C R S) across) near one.
struct OutputStage {
  std::vector<float> scale;      // per output channel
  float out_scale = 4.0f / 255;  // of the quantization to uint8
};

OutputStage OutputStageOf(const TaskArgs& args) {
  const topi::Conv2dShape s = Int8ConvShapeOf(args);
  const double base = 1.0 / (10000.0 * std::sqrt(static_cast<double>(s.c * s.r * s.s)));
  OutputStage stage;
  for (int64_t k = 0; k < s.k; ++k) {
    stage.scale.push_back(static_cast<float>(base * (1.0 + 0.1 * static_cast<double>(k % 5))));
  }
  return stage;
}

// `sum` of output channel `k` through the stage, in the kernel's float32 operations.
float StageValue(int64_t sum, int64_t k, const OutputStage& stage) {
  const float v = std::max(static_cast<float>(static_cast<int32_t>(sum)) * stage.scale[k], 0.f);
  const float q = std::min(std::max(std::nearbyint(v / stage.out_scale), 0.f), 255.f);
  return static_cast<float>(static_cast<int32_t>(q)) * stage.out_scale;
}

// The exact int32 sums of uint8 data and int8 weights (the padding the zero point) through the
// output stage.
std::vector<float> Int8ConvReference(const TaskArgs& args,
                                     const std::vector<std::vector<float>>& inputs) {
  const OutputStage stage = OutputStageOf(args);
  const topi::Conv2dShape s = Int8ConvShapeOf(args);
  const std::vector<float>& data = inputs[0];
  const std::vector<float>& kernel = inputs[1];
  const int64_t oh = s.oh(), ow = s.ow(), zero = ZeroPointOf(args);
  std::vector<float> out(static_cast<size_t>(s.n * s.k * oh * ow));
  for (int64_t n = 0; n < s.n; ++n) {
    for (int64_t k = 0; k < s.k; ++k) {
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t x = 0; x < ow; ++x) {
          int64_t sum = 0;
          for (int64_t c = 0; c < s.c; ++c) {
            for (int64_t r = 0; r < s.r; ++r) {
              const int64_t iy = y * s.stride + r - s.pad;
              for (int64_t q = 0; q < s.s; ++q) {
                const int64_t ix = x * s.stride + q - s.pad;
                const bool inside = iy >= 0 && iy < s.h && ix >= 0 && ix < s.w;
                const int64_t value =
                    inside ? static_cast<int64_t>(data[((n * s.c + c) * s.h + iy) * s.w + ix])
                           : zero;
                sum += value * static_cast<int64_t>(kernel[((k * s.c + c) * s.r + r) * s.s + q]);
              }
            }
          }
          out[((n * s.k + k) * oh + y) * ow + x] = StageValue(sum, k, stage);
        }
      }
    }
  }
  return out;
}

// The output stage as the kernel's epilogue over its NCHW[oc_bn]c sums; its inputs are each
// output channel's zero-point share (int32) and scale (float32).
topi::OutputEpilogue OutputStageEpilogue(const TaskArgs& args, int64_t oc_bn) {
  const topi::Conv2dShape s = Int8ConvShapeOf(args);
  const float out_scale = OutputStage{}.out_scale;
  te::Tensor correction = te::placeholder({ir::IntImm(ir::DataType::Int(32), s.k)},
                                          ir::DataType::Int(32), "correction");
  te::Tensor scale =
      te::placeholder({ir::IntImm(ir::DataType::Int(32), s.k)}, ir::DataType::Float(32), "scale");
  auto apply = [=](const te::Tensor& sums) {
    return te::compute(
        sums.shape(),
        [&](const std::vector<ir::Var>& i) {
          using ir::DataType;
          const ir::Expr k = i[1] * ir::IntImm(DataType::Int(32), oc_bn) + i[4];
          const ir::Expr at = sums(std::vector<ir::Expr>(i.begin(), i.end()));
          ir::Expr v = ir::cast(DataType::Float(32), at - correction(k)) * scale(k);
          v = ir::max(v, ir::const_like(v, 0));
          ir::Expr q = ir::round(v / ir::FloatImm(DataType::Float(32), out_scale));
          q = ir::min(ir::max(q, ir::const_like(q, 0)), ir::const_like(q, 255));
          return ir::cast(DataType::Float(32),
                          ir::cast(DataType::Int(32), ir::cast(DataType::UInt(8), q))) *
                 ir::FloatImm(DataType::Float(32), out_scale);
        },
        "output_stage");
  };
  return {apply, {correction, scale}};
}

// Candidates take data and weights as words of four channels (NCHW[ic]c and OIHW[ic]i[oc_bn]o of
// words) and the output stage's per-channel inputs, and give float32 NCHW[oc_bn]c.
CandidateLayout Int8ConvLayout(const TaskArgs& args, const space::ConfigEntity& config) {
  const topi::Conv2dShape s = Int8ConvShapeOf(args);
  const topi::Conv2dBlocks words = topi::Conv2dNCHWcBlocks(config);  // ic_bn counts words
  const int64_t ic_bn = 4 * words.ic_bn, oc_bn = words.oc_bn;
  const NCHWDims data{s.n, s.c, s.h, s.w}, weights{s.k, s.c, s.r, s.s},
      out{s.n, s.k, s.oh(), s.ow()};
  CandidateLayout layout;
  layout.shapes = {{s.n, s.c / ic_bn, s.h, s.w, words.ic_bn},
                   {s.k / oc_bn, s.c / ic_bn, s.r, s.s, words.ic_bn, oc_bn},
                   {s.k},
                   {s.k},
                   {s.n, s.k / oc_bn, s.oh(), s.ow(), oc_bn}};
  const std::vector<float> scale = OutputStageOf(args).scale;
  layout.pack_inputs = [=](const std::vector<std::vector<float>>& inputs) {
    return std::vector<ArgValues>{
        ArgValues::Int32s(ToNCHWcWords(inputs[0], data, words.ic_bn)),
        ArgValues::Int32s(ToOIHWioWords(inputs[1], weights, words.ic_bn, oc_bn)),
        ArgValues::Int32s(std::vector<int32_t>(static_cast<size_t>(s.k), 0)),
        ArgValues::Floats(scale)};
  };
  layout.unpack_output = [=](const ArgValues& output) {
    return FromNCHWc(output.ToFloats(), out, oc_bn);
  };
  return layout;
}

topi::DenseShape DenseShapeOf(const TaskArgs& args) {
  return {args.ints[0], args.ints[1], args.ints[2]};
}

// The output stage a model's int8 dense layer runs on its sums, as its task times it: each
// column's sums (less the zero point's share, 0 here) scaled back to floats and its bias added;
// the scales put sums of random bytes (about 147 × 73 × sqrt(K) across) near one.
struct DenseStage {
  std::vector<float> scale, bias;  // per column
};

DenseStage DenseStageOf(const TaskArgs& args) {
  const topi::DenseShape s = DenseShapeOf(args);
  const double base = 1.0 / (10000.0 * std::sqrt(static_cast<double>(s.k)));
  DenseStage stage;
  for (int64_t j = 0; j < s.n; ++j) {
    stage.scale.push_back(static_cast<float>(base * (1.0 + 0.1 * static_cast<double>(j % 5))));
    stage.bias.push_back(0.01f * static_cast<float>(j % 7));
  }
  return stage;
}

// The exact int32 sums of uint8 A[m, k] times int8 W[n, k] through the output stage (the kernel's
// may contract the scale and bias into one fma: the check's tolerance covers that rounding).
std::vector<float> Int8DenseReference(const TaskArgs& args,
                                      const std::vector<std::vector<float>>& inputs) {
  const topi::DenseShape s = DenseShapeOf(args);
  const DenseStage stage = DenseStageOf(args);
  std::vector<float> c(static_cast<size_t>(s.m * s.n));
  for (int64_t i = 0; i < s.m; ++i) {
    for (int64_t j = 0; j < s.n; ++j) {
      int64_t sum = 0;
      for (int64_t l = 0; l < s.k; ++l) {
        sum += static_cast<int64_t>(inputs[0][i * s.k + l]) *
               static_cast<int64_t>(inputs[1][j * s.k + l]);
      }
      c[i * s.n + j] =
          static_cast<float>(static_cast<int32_t>(sum)) * stage.scale[j] + stage.bias[j];
    }
  }
  return c;
}

// The output stage as the kernel's epilogue over its [m, n] sums; its inputs are each column's
// zero-point share (int32), scale and bias (float32).
topi::OutputEpilogue DenseStageEpilogue(const TaskArgs& args) {
  using ir::DataType;
  const topi::DenseShape s = DenseShapeOf(args);
  const ir::Expr n = ir::IntImm(DataType::Int(32), s.n);
  te::Tensor correction = te::placeholder({n}, DataType::Int(32), "correction");
  te::Tensor scale = te::placeholder({n}, DataType::Float(32), "scale");
  te::Tensor bias = te::placeholder({n}, DataType::Float(32), "bias");
  auto apply = [=](const te::Tensor& sums) {
    return te::compute(
        sums.shape(),
        [&](const std::vector<ir::Var>& i) {
          return ir::cast(DataType::Float(32), sums(i[0], i[1]) - correction(i[1])) * scale(i[1]) +
                 bias(i[1]);
        },
        "output_stage");
  };
  return {apply, {correction, scale, bias}};
}

// Candidates take A's rows and W's rows as words of four bytes, W in column blocks, and the
// output stage's per-column inputs, and give float32 C.
CandidateLayout Int8DenseLayout(const TaskArgs& args, const space::ConfigEntity& config) {
  const topi::DenseShape s = DenseShapeOf(args);
  const int64_t bn = topi::DenseWeightBlock(config);
  const DenseStage stage = DenseStageOf(args);
  CandidateLayout layout;
  layout.shapes = {{s.m, s.k / 4}, {s.n / bn, s.k / 4, bn}, {s.n}, {s.n}, {s.n}, {s.m, s.n}};
  layout.pack_inputs = [=](const std::vector<std::vector<float>>& inputs) {
    return std::vector<ArgValues>{ArgValues::Int32s(ToRowWords(inputs[0], s.m, s.k)),
                                  ArgValues::Int32s(ToColumnBlockWords(inputs[1], s.n, s.k, bn)),
                                  ArgValues::Int32s(std::vector<int32_t>(s.n, 0)),
                                  ArgValues::Floats(stage.scale), ArgValues::Floats(stage.bias)};
  };
  layout.unpack_output = [](const ArgValues& output) { return output.ToFloats(); };
  return layout;
}

}  // namespace

TemplateDef DenseInt8Template(const std::string& name, topi::DenseSpaceFn space) {
  TemplateDef d;
  d.name = name;
  // 2: timed with a model's output stage (dequantize, bias), as conv2d_NCHWc_int8.x86 is.
  d.version = 2;
  d.args_help = "(M,N,K,uint8)";
  d.validate = [name = d.name, help = d.args_help, space](const TaskArgs& args) {
    TESSERA_USER_CHECK(args.ints.size() == 3 && args.dtype == "uint8") << name << " takes " << help;
    TESSERA_USER_CHECK(args.ints[2] % 4 == 0)
        << "the reduction (" << args.ints[2] << ") must be a multiple of 4";
    space(topi::DenseWords(DenseShapeOf(args)), topi::VectorUnit{});  // checks the dimensions
  };
  d.space = [space](const TaskArgs& args, const topi::VectorUnit& unit) {
    return space(topi::DenseWords(DenseShapeOf(args)), unit);
  };
  d.instantiate = [](const TaskArgs& args, const space::ConfigEntity& config) {
    const topi::OutputEpilogue stage = DenseStageEpilogue(args);
    return topi::DenseInt8X86(DenseShapeOf(args), config, &stage);
  };
  d.baseline = [](const TaskArgs& args) { return topi::DenseInt8Default(DenseShapeOf(args)); };
  d.reference = Int8DenseReference;
  d.layout = Int8DenseLayout;
  d.weight_args = {1};
  d.input_ranges = {{0, 255, true}, {-128, 127, true}};
  return d;
}

TemplateDef Conv2dNCHWcInt8Template(const std::string& name) {
  TemplateDef d;
  d.name = name;
  // 2: timed with the output stage a model runs (version 1 timed the sums alone, which ran 2-4x
  // faster than the kernels in a model).
  d.version = 2;
  d.args_help = "(N,C,H,W,K,R,S,stride,pad,zero_point,uint8)";
  d.validate = [name = d.name, help = d.args_help](const TaskArgs& args) {
    TESSERA_USER_CHECK(args.ints.size() == 10 && args.dtype == "uint8")
        << name << " takes " << help;
    const int64_t zero = ZeroPointOf(args);
    TESSERA_USER_CHECK(zero >= 0 && zero <= 255)
        << "the zero point " << zero << " is no uint8 (0 to 255)";
    TESSERA_USER_CHECK(zero == 0 || Int8ConvShapeOf(args).pad > 0)
        << "without padding the zero point changes nothing: give 0";
    const topi::Conv2dShape shape = Int8ConvShapeOf(args);
    TESSERA_USER_CHECK(shape.c % 4 == 0)
        << "the input channels (" << shape.c << ") must be a multiple of 4";
    topi::Conv2dNCHWcX86Space(topi::Conv2dWords(shape));  // checks the shape
  };
  d.space = [](const TaskArgs& args, const topi::VectorUnit& vector_unit) {
    return topi::Conv2dNCHWcX86Space(topi::Conv2dWords(Int8ConvShapeOf(args)), vector_unit);
  };
  d.instantiate = [](const TaskArgs& args, const space::ConfigEntity& config) {
    const topi::OutputEpilogue stage =
        OutputStageEpilogue(args, topi::Conv2dNCHWcBlocks(config).oc_bn);
    return topi::Conv2dNCHWcInt8X86(Int8ConvShapeOf(args), config, PadWord(args), &stage);
  };
  d.baseline = [](const TaskArgs& args) {
    return topi::Conv2dInt8Default(Int8ConvShapeOf(args), ZeroPointOf(args));
  };
  d.reference = Int8ConvReference;
  d.layout = Int8ConvLayout;
  d.weight_args = {1};
  d.input_ranges = {{0, 255, true}, {-128, 127, true}};
  return d;
}

}  // namespace task
}  // namespace tessera
