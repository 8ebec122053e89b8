#include <functional>
#include <sstream>

#include "compiler/support/error.h"
#include "compiler/task/blocked_layout.h"
#include "compiler/task/task.h"
#include "compiler/task/templates_cuda.h"
#include "compiler/task/templates_int8.h"
#include "compiler/topi/batch_matmul_x86.h"
#include "compiler/topi/conv2d_nchwc_x86.h"
#include "compiler/topi/conv2d_winograd_x86.h"
#include "compiler/topi/dense_x86.h"
#include "compiler/topi/depthwise_conv2d_nchwc_x86.h"
#include "compiler/topi/depthwise_conv2d_x86.h"

namespace tessera {
namespace task {
namespace {

topi::DenseShape DenseShapeOf(const TaskArgs& args) {
  return {args.ints[0], args.ints[1], args.ints[2]};
}

// C[m, n] = sum_k A[m, k] * W[n, k], accumulated in double so rounding order does not matter.
std::vector<float> DenseReference(const TaskArgs& args,
                                  const std::vector<std::vector<float>>& inputs) {
  int64_t m = args.ints[0], n = args.ints[1], k = args.ints[2];
  const std::vector<float>& a = inputs[0];
  const std::vector<float>& w = inputs[1];
  std::vector<float> c(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t l = 0; l < k; ++l) sum += double(a[i * k + l]) * double(w[j * k + l]);
      c[i * n + j] = static_cast<float>(sum);
    }
  }
  return c;
}

// Candidates read the weights packed in column blocks (a constant of the model, packed once).
CandidateLayout DenseX86Layout(const TaskArgs& args, const space::ConfigEntity& config) {
  const topi::DenseShape s = DenseShapeOf(args);
  const int64_t bn = topi::DenseWeightBlock(config);
  CandidateLayout layout;
  layout.shapes = {{s.m, s.k}, {s.n / bn, s.k, bn}, {s.m, s.n}};
  layout.pack_inputs = [=](const std::vector<std::vector<float>>& inputs) {
    return std::vector<ArgValues>{ArgValues::Floats(inputs[0]),
                                  ArgValues::Floats(ToColumnBlocks(inputs[1], s.n, s.k, bn))};
  };
  layout.unpack_output = [](const ArgValues& output) { return output.ToFloats(); };
  return layout;
}

// The tiled dense of `dense.x86` (`space`: topi::DenseX86Space) or `dense.arm`
// (topi::DenseArmSpace): one computation, spaces per vector unit.
TemplateDef DenseTemplate(const std::string& name, topi::DenseSpaceFn space) {
  TemplateDef d;
  d.name = name;
  d.version = 1;
  d.args_help = "(M,N,K,float32)";
  d.validate = [name, space](const TaskArgs& args) {
    TESSERA_USER_CHECK(args.ints.size() == 3 && args.dtype == "float32")
        << name << " takes (M,N,K,float32)";
    space(DenseShapeOf(args), topi::VectorUnit{});  // checks the dimensions
  };
  d.space = [space](const TaskArgs& args, const topi::VectorUnit& unit) {
    return space(DenseShapeOf(args), unit);
  };
  d.instantiate = [](const TaskArgs& args, const space::ConfigEntity& config) {
    return topi::DenseX86(DenseShapeOf(args), config);
  };
  d.baseline = [](const TaskArgs& args) { return topi::DenseDefault(DenseShapeOf(args)); };
  d.reference = DenseReference;
  d.layout = DenseX86Layout;
  d.weight_args = {1};
  return d;
}

// (N,C,H,W,K,R,S,stride,pad) and, for the grouped template, the groups.
topi::Conv2dShape ConvShapeOf(const TaskArgs& args) {
  const auto& v = args.ints;
  return {v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v.size() > 9 ? v[9] : 1};
}

// Direct NCHW convolution (grouped when the shape says so) with zero padding, accumulated in
// double.
std::vector<float> Conv2dReference(const TaskArgs& args,
                                   const std::vector<std::vector<float>>& inputs) {
  topi::Conv2dShape s = ConvShapeOf(args);
  const std::vector<float>& data = inputs[0];
  const std::vector<float>& kernel = inputs[1];
  const int64_t oh = s.oh(), ow = s.ow(), group_c = s.group_c();
  std::vector<float> out(static_cast<size_t>(s.n * s.k * oh * ow));
  for (int64_t n = 0; n < s.n; ++n) {
    for (int64_t k = 0; k < s.k; ++k) {
      const int64_t first = k / s.group_k() * group_c;  // the group's first input channel
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t x = 0; x < ow; ++x) {
          double sum = 0;
          for (int64_t c = 0; c < group_c; ++c) {
            for (int64_t r = 0; r < s.r; ++r) {
              int64_t iy = y * s.stride + r - s.pad;
              if (iy < 0 || iy >= s.h) continue;
              for (int64_t q = 0; q < s.s; ++q) {
                int64_t ix = x * s.stride + q - s.pad;
                if (ix < 0 || ix >= s.w) continue;
                sum += double(data[((n * s.c + first + c) * s.h + iy) * s.w + ix]) *
                       double(kernel[((k * group_c + c) * s.r + r) * s.s + q]);
              }
            }
          }
          out[((n * s.k + k) * oh + y) * ow + x] = static_cast<float>(sum);
        }
      }
    }
  }
  return out;
}

// Candidates take NCHW[ic_bn]c data and OIHW[ic_bn]i[oc_bn]o weights and give NCHW[oc_bn]c.
CandidateLayout Conv2dNCHWcLayout(const TaskArgs& args, const space::ConfigEntity& config) {
  const topi::Conv2dShape s = ConvShapeOf(args);
  const topi::Conv2dBlocks b = topi::Conv2dNCHWcBlocks(config);
  const NCHWDims data{s.n, s.c, s.h, s.w}, weights{s.k, s.group_c(), s.r, s.s},
      out{s.n, s.k, s.oh(), s.ow()};
  CandidateLayout layout;
  layout.shapes = {{s.n, s.c / b.ic_bn, s.h, s.w, b.ic_bn},
                   {s.k / b.oc_bn, s.group_c() / b.ic_bn, s.r, s.s, b.ic_bn, b.oc_bn},
                   {s.n, s.k / b.oc_bn, s.oh(), s.ow(), b.oc_bn}};
  layout.pack_inputs = [=](const std::vector<std::vector<float>>& inputs) {
    return std::vector<ArgValues>{
        ArgValues::Floats(ToNCHWc(inputs[0], data, b.ic_bn)),
        ArgValues::Floats(ToOIHWio(inputs[1], weights, b.ic_bn, b.oc_bn))};
  };
  layout.unpack_output = [=](const ArgValues& output) {
    return FromNCHWc(output.ToFloats(), out, b.oc_bn);
  };
  return layout;
}

// The direct blocked convolution; `grouped`: its grouped form, the groups a tenth argument.
TemplateDef Conv2dNCHWcX86Template(bool grouped) {
  TemplateDef d;
  d.name = grouped ? "group_conv2d_NCHWc.x86" : "conv2d_NCHWc.x86";
  d.version = 1;
  d.args_help =
      grouped ? "(N,C,H,W,K,R,S,stride,pad,G,float32)" : "(N,C,H,W,K,R,S,stride,pad,float32)";
  d.validate = [grouped, name = d.name, help = d.args_help](const TaskArgs& args) {
    TESSERA_USER_CHECK(args.ints.size() == (grouped ? 10u : 9u) && args.dtype == "float32")
        << name << " takes " << help;
    topi::Conv2dNCHWcX86Space(ConvShapeOf(args));  // checks the shape
  };
  d.space = [](const TaskArgs& args, const topi::VectorUnit& vector_unit) {
    return topi::Conv2dNCHWcX86Space(ConvShapeOf(args), vector_unit);
  };
  d.instantiate = [](const TaskArgs& args, const space::ConfigEntity& config) {
    return topi::Conv2dNCHWcX86(ConvShapeOf(args), config);
  };
  d.baseline = [](const TaskArgs& args) { return topi::Conv2dDefault(ConvShapeOf(args)); };
  d.reference = Conv2dReference;
  d.layout = Conv2dNCHWcLayout;
  d.weight_args = {1};
  return d;
}

// The direct blocked convolution for Arm: the x86 computation, its space with lane_loads.
TemplateDef Conv2dNCHWcArmTemplate(bool grouped) {
  TemplateDef d = Conv2dNCHWcX86Template(grouped);
  d.name = grouped ? "group_conv2d_NCHWc.arm" : "conv2d_NCHWc.arm";
  d.space = [](const TaskArgs& args, const topi::VectorUnit& vector_unit) {
    return topi::Conv2dNCHWcArmSpace(ConvShapeOf(args), vector_unit);
  };
  return d;
}

// A 3x3 stride-1 convolution: (N,C,H,W,K,pad).
topi::Conv2dShape WinogradShapeOf(const TaskArgs& args) {
  const auto& v = args.ints;
  return {v[0], v[1], v[2], v[3], v[4], 3, 3, 1, v[5]};
}

// Candidates take NCHW[ic_bn]c data and weights transformed for their tile, give NCHW[oc_bn]c.
CandidateLayout Conv2dWinogradLayout(const TaskArgs& args, const space::ConfigEntity& config) {
  const topi::Conv2dShape s = WinogradShapeOf(args);
  const topi::Conv2dBlocks b = topi::Conv2dNCHWcBlocks(config);
  const int64_t m = topi::WinogradTile(config), alpha = m + 2;
  const NCHWDims data{s.n, s.c, s.h, s.w}, out{s.n, s.k, s.oh(), s.ow()};
  CandidateLayout layout;
  layout.shapes = {{s.n, s.c / b.ic_bn, s.h, s.w, b.ic_bn},
                   {alpha, alpha, s.k / b.oc_bn, s.c / b.ic_bn, b.ic_bn, b.oc_bn},
                   {s.n, s.k / b.oc_bn, s.oh(), s.ow(), b.oc_bn}};
  layout.pack_inputs = [=](const std::vector<std::vector<float>>& inputs) {
    return std::vector<ArgValues>{
        ArgValues::Floats(ToNCHWc(inputs[0], data, b.ic_bn)),
        ArgValues::Floats(topi::WinogradWeights(inputs[1], s, m, b.ic_bn, b.oc_bn))};
  };
  layout.unpack_output = [=](const ArgValues& output) {
    return FromNCHWc(output.ToFloats(), out, b.oc_bn);
  };
  return layout;
}

// The Winograd convolution: `conv2d_winograd_NCHWc.x86`, or `.arm`, whose space the same function
// sizes for NEON's registers and the Arm core's L2.
TemplateDef Conv2dWinogradTemplate(const std::string& name) {
  TemplateDef d;
  d.name = name;
  d.version = 1;
  d.args_help = "(N,C,H,W,K,pad,float32)";
  d.validate = [name](const TaskArgs& args) {
    TESSERA_USER_CHECK(args.ints.size() == 6 && args.dtype == "float32")
        << name << " takes (N,C,H,W,K,pad,float32)";
    topi::Conv2dWinogradX86Space(WinogradShapeOf(args));  // checks the shape
  };
  d.space = [](const TaskArgs& args, const topi::VectorUnit& vector_unit) {
    return topi::Conv2dWinogradX86Space(WinogradShapeOf(args), vector_unit);
  };
  d.instantiate = [](const TaskArgs& args, const space::ConfigEntity& config) {
    return topi::Conv2dWinogradX86(WinogradShapeOf(args), config);
  };
  d.baseline = [](const TaskArgs& args) { return topi::Conv2dDefault(WinogradShapeOf(args)); };
  d.reference = [](const TaskArgs& args, const std::vector<std::vector<float>>& inputs) {
    const topi::Conv2dShape s = WinogradShapeOf(args);
    TaskArgs direct = args;
    direct.ints = {s.n, s.c, s.h, s.w, s.k, s.r, s.s, s.stride, s.pad};
    return Conv2dReference(direct, inputs);
  };
  d.layout = Conv2dWinogradLayout;
  d.weight_args = {1};
  return d;
}

topi::BatchMatmulShape BatchShapeOf(const TaskArgs& args) {
  return {args.ints[0], args.ints[1], args.ints[2], args.ints[3]};
}

// The batched product: `batch_matmul.x86` (its space sized for AVX-512 whatever the target) or
// `batch_matmul.arm` (topi::BatchMatmulArmSpace).
TemplateDef BatchMatmulTemplate(
    const std::string& name,
    std::function<space::ConfigSpace(const topi::BatchMatmulShape&, const topi::VectorUnit&)>
        space) {
  TemplateDef d;
  d.name = name;
  d.version = 1;
  d.args_help = "(B,M,N,K,float32)";
  d.validate = [name, space](const TaskArgs& args) {
    TESSERA_USER_CHECK(args.ints.size() == 4 && args.dtype == "float32")
        << name << " takes (B,M,N,K,float32)";
    space(BatchShapeOf(args), topi::VectorUnit{});
  };
  d.space = [space](const TaskArgs& args, const topi::VectorUnit& unit) {
    return space(BatchShapeOf(args), unit);
  };
  d.instantiate = [](const TaskArgs& args, const space::ConfigEntity& config) {
    return topi::BatchMatmulX86(BatchShapeOf(args), config);
  };
  d.baseline = [](const TaskArgs& args) { return topi::BatchMatmulDefault(BatchShapeOf(args)); };
  d.reference = [](const TaskArgs& args, const std::vector<std::vector<float>>& inputs) {
    topi::BatchMatmulShape s = BatchShapeOf(args);
    std::vector<float> c(static_cast<size_t>(s.b * s.m * s.n));
    for (int64_t b = 0; b < s.b; ++b) {
      for (int64_t i = 0; i < s.m; ++i) {
        for (int64_t j = 0; j < s.n; ++j) {
          double sum = 0;
          for (int64_t l = 0; l < s.k; ++l) {
            sum += double(inputs[0][(b * s.m + i) * s.k + l]) *
                   double(inputs[1][(b * s.k + l) * s.n + j]);
          }
          c[(b * s.m + i) * s.n + j] = static_cast<float>(sum);
        }
      }
    }
    return c;
  };
  return d;
}

topi::Conv2dShape DepthwiseShapeOf(const TaskArgs& args) {
  const auto& v = args.ints;
  return {v[0], v[1], v[2], v[3], v[1], v[4], v[5], v[6], v[7]};
}

// Direct NCHW depthwise convolution with zero padding, accumulated in double.
std::vector<float> DepthwiseReference(const TaskArgs& args,
                                      const std::vector<std::vector<float>>& inputs) {
  topi::Conv2dShape s = DepthwiseShapeOf(args);
  const int64_t oh = s.oh(), ow = s.ow();
  std::vector<float> out(static_cast<size_t>(s.n * s.c * oh * ow));
  for (int64_t n = 0; n < s.n; ++n) {
    for (int64_t c = 0; c < s.c; ++c) {
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t x = 0; x < ow; ++x) {
          double sum = 0;
          for (int64_t r = 0; r < s.r; ++r) {
            for (int64_t q = 0; q < s.s; ++q) {
              int64_t iy = y * s.stride + r - s.pad, ix = x * s.stride + q - s.pad;
              if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
              sum += double(inputs[0][((n * s.c + c) * s.h + iy) * s.w + ix]) *
                     double(inputs[1][(c * s.r + r) * s.s + q]);
            }
          }
          out[((n * s.c + c) * oh + y) * ow + x] = static_cast<float>(sum);
        }
      }
    }
  }
  return out;
}

// Candidates take NCHW[bn]c data and [C/bn, R, S, bn] weights and give NCHW[bn]c.
CandidateLayout DepthwiseNCHWcLayout(const TaskArgs& args, const space::ConfigEntity& config) {
  const topi::Conv2dShape s = DepthwiseShapeOf(args);
  const int64_t bn = topi::DepthwiseConv2dNCHWcBlock(config);
  const NCHWDims data{s.n, s.c, s.h, s.w}, weights{1, s.c, s.r, s.s}, out{s.n, s.c, s.oh(), s.ow()};
  CandidateLayout layout;
  layout.shapes = {
      {s.n, s.c / bn, s.h, s.w, bn}, {s.c / bn, s.r, s.s, bn}, {s.n, s.c / bn, s.oh(), s.ow(), bn}};
  layout.pack_inputs = [=](const std::vector<std::vector<float>>& inputs) {
    return std::vector<ArgValues>{ArgValues::Floats(ToNCHWc(inputs[0], data, bn)),
                                  ArgValues::Floats(ToNCHWc(inputs[1], weights, bn))};
  };
  layout.unpack_output = [=](const ArgValues& output) {
    return FromNCHWc(output.ToFloats(), out, bn);
  };
  return layout;
}

// Both depthwise templates take the same arguments, baseline and reference; they differ in the
// schedule and the candidates' layout (none: plain NCHW).
TemplateDef DepthwiseTemplate(
    const std::string& name, int version,
    std::function<space::ConfigSpace(const topi::Conv2dShape&, const topi::VectorUnit&)> space_of,
    std::function<topi::ScheduledOp(const topi::Conv2dShape&, const space::ConfigEntity&)> make,
    std::function<CandidateLayout(const TaskArgs&, const space::ConfigEntity&)> layout) {
  TemplateDef d;
  d.name = name;
  d.version = version;
  d.args_help = "(N,C,H,W,R,S,stride,pad,float32)";
  d.validate = [name, space_of](const TaskArgs& args) {
    TESSERA_USER_CHECK(args.ints.size() == 8 && args.dtype == "float32")
        << name << " takes (N,C,H,W,R,S,stride,pad,float32)";
    space_of(DepthwiseShapeOf(args), topi::VectorUnit{});  // checks the shape
  };
  d.space = [space_of](const TaskArgs& args, const topi::VectorUnit& vector_unit) {
    return space_of(DepthwiseShapeOf(args), vector_unit);
  };
  d.instantiate = [make](const TaskArgs& args, const space::ConfigEntity& config) {
    return make(DepthwiseShapeOf(args), config);
  };
  d.baseline = [](const TaskArgs& args) {
    return topi::DepthwiseConv2dDefault(DepthwiseShapeOf(args));
  };
  d.reference = DepthwiseReference;
  d.layout = std::move(layout);
  d.weight_args = {1};
  return d;
}

topi::ScheduledOp BlockedDepthwise(const topi::Conv2dShape& shape,
                                   const space::ConfigEntity& config) {
  return topi::DepthwiseConv2dNCHWcX86(shape, config);
}

}  // namespace

const std::vector<TemplateDef>& Templates() {
  static const std::vector<TemplateDef> templates = [] {
    std::vector<TemplateDef> all = {
        DenseTemplate("dense.x86", topi::DenseX86Space),
        DenseTemplate("dense.arm", topi::DenseArmSpace),
        Conv2dNCHWcX86Template(/*grouped=*/false),
        Conv2dNCHWcX86Template(/*grouped=*/true),
        Conv2dNCHWcArmTemplate(/*grouped=*/false),
        Conv2dNCHWcArmTemplate(/*grouped=*/true),
        BatchMatmulTemplate("batch_matmul.x86",
                            [](const topi::BatchMatmulShape& shape, const topi::VectorUnit&) {
                              return topi::BatchMatmulX86Space(shape);
                            }),
        BatchMatmulTemplate("batch_matmul.arm", topi::BatchMatmulArmSpace),
        DepthwiseTemplate(
            "depthwise_conv2d.x86", /*version=*/1,
            [](const topi::Conv2dShape& shape, const topi::VectorUnit&) {
              return topi::DepthwiseConv2dX86Space(shape);
            },
            topi::DepthwiseConv2dX86, nullptr),
        DepthwiseTemplate("depthwise_conv2d_NCHWc.x86", /*version=*/1,
                          topi::DepthwiseConv2dNCHWcX86Space, BlockedDepthwise,
                          DepthwiseNCHWcLayout),
        DepthwiseTemplate("depthwise_conv2d_NCHWc.arm", /*version=*/1,
                          topi::DepthwiseConv2dNCHWcArmSpace, BlockedDepthwise,
                          DepthwiseNCHWcLayout),
        Conv2dWinogradTemplate("conv2d_winograd_NCHWc.x86"),
        Conv2dWinogradTemplate("conv2d_winograd_NCHWc.arm"),
        Conv2dNCHWcInt8Template("conv2d_NCHWc_int8.x86"),
        Conv2dNCHWcInt8Template("conv2d_NCHWc_int8.arm"),
        DenseInt8Template("dense_int8.x86", topi::DenseX86Space),
        DenseInt8Template("dense_int8.arm", topi::DenseArmSpace)};
    for (TemplateDef& d : CUDATemplates(all)) all.push_back(std::move(d));
    return all;
  }();
  return templates;
}

}  // namespace task
}  // namespace tessera
