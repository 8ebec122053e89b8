/// \file
/// The typed attributes of Conv, parsed in one place for the check of supported values, shape
/// inference, the compute and the model build's choice of template.
#ifndef TESSERA_COMPILER_OPS_CONV_H_
#define TESSERA_COMPILER_OPS_CONV_H_

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"

namespace tessera {
namespace ops {

/// The attributes of a 2-D convolution, with ONNX's defaults.
struct Conv2dAttrs {
  std::vector<int64_t> strides = {1, 1};     ///< per spatial axis
  std::vector<int64_t> dilations = {1, 1};   ///< per spatial axis
  std::vector<int64_t> pads = {0, 0, 0, 0};  ///< begins of both axes, then ends
  int64_t group = 1;                         ///< channel groups
  std::string auto_pad = "NOTSET";           ///< NOTSET or VALID (others are refused)

  /// The same stride along both axes, no dilation and one padding on every side (what the
  /// convolution templates take).
  bool Uniform() const;
};

/// The attributes of Conv `node`.
Conv2dAttrs ParseConv2dAttrs(const graph::Node& node);

/// The output shape of convolution `node` (Conv, ConvInteger, QLinearConv) with its input,
/// weights and bias (-1: none) at the given input indices; throws `UserError` naming the node
/// for shapes that do not agree.
std::vector<int64_t> ConvOutputShape(const graph::Graph& g, const graph::Node& node, size_t x_input,
                                     size_t w_input, int bias);

}  // namespace ops
}  // namespace tessera

#endif  // TESSERA_COMPILER_OPS_CONV_H_
