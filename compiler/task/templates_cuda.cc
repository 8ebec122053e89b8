#include "compiler/task/templates_cuda.h"

#include "compiler/support/error.h"
#include "compiler/topi/conv2d_nchw_cuda.h"
#include "compiler/topi/dense_cuda.h"
#include "compiler/topi/depthwise_conv2d_cuda.h"

namespace tessera {
namespace task {

namespace {

const TemplateDef& Find(const std::vector<TemplateDef>& defs, const std::string& name) {
  for (const TemplateDef& d : defs)
    if (d.name == name) return d;
  TESSERA_INTERNAL_ERROR() << "no template " << name;
  return defs.front();
}

// `base` (an x86 template of the same computation) with its name, version, space and schedule
// replaced; candidates take the baseline's arguments as they are (no packed layouts on GPUs).
template <typename Shape>
TemplateDef Variant(const TemplateDef& base, const std::string& name, int version, size_t num_ints,
                    std::function<Shape(const TaskArgs&)> shape_of,
                    std::function<space::ConfigSpace(const Shape&)> space,
                    std::function<topi::ScheduledOp(const Shape&, const space::ConfigEntity&)> op) {
  TemplateDef d = base;
  d.name = name;
  d.version = version;
  d.validate = [=](const TaskArgs& args) {
    TESSERA_USER_CHECK(args.ints.size() == num_ints && args.dtype == "float32")
        << name << " takes " << base.args_help;
    space(shape_of(args));  // checks the shape
  };
  d.space = [=](const TaskArgs& args, const topi::VectorUnit&) { return space(shape_of(args)); };
  d.instantiate = [=](const TaskArgs& args, const space::ConfigEntity& config) {
    return op(shape_of(args), config);
  };
  d.layout = nullptr;
  return d;
}

}  // namespace

std::vector<TemplateDef> CUDATemplates(const std::vector<TemplateDef>& x86) {
  std::function<topi::DenseShape(const TaskArgs&)> dense_shape = [](const TaskArgs& a) {
    return topi::DenseShape{a.ints[0], a.ints[1], a.ints[2]};
  };
  std::function<topi::Conv2dShape(const TaskArgs&)> conv_shape = [](const TaskArgs& a) {
    const auto& v = a.ints;
    return topi::Conv2dShape{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]};
  };
  std::function<topi::Conv2dShape(const TaskArgs&)> depthwise_shape = [](const TaskArgs& a) {
    const auto& v = a.ints;
    return topi::Conv2dShape{v[0], v[1], v[2], v[3], v[1], v[4], v[5], v[6], v[7]};
  };
  return {
      Variant<topi::DenseShape>(Find(x86, "dense.x86"), "dense.cuda", /*version=*/1, 3, dense_shape,
                                topi::DenseCUDASpace,
                                [](const topi::DenseShape& shape, const space::ConfigEntity& c) {
                                  return topi::DenseCUDA(shape, c);  // float32 storage
                                }),
      Variant<topi::Conv2dShape>(Find(x86, "conv2d_NCHWc.x86"), "conv2d_nchw.cuda", /*version=*/1,
                                 9, conv_shape, topi::Conv2dNCHWCUDASpace, topi::Conv2dNCHWCUDA),
      Variant<topi::Conv2dShape>(Find(x86, "depthwise_conv2d.x86"), "depthwise_conv2d.cuda",
                                 /*version=*/1, 8, depthwise_shape, topi::DepthwiseConv2dCUDASpace,
                                 topi::DepthwiseConv2dCUDA),
  };
}

}  // namespace task
}  // namespace tessera
