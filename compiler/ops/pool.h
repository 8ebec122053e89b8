/// \file
/// The typed attributes of MaxPool and AveragePool, parsed in one place for the check of
/// supported values, shape inference and the computes; and the pooling window as a compute over
/// plain or blocked data.
#ifndef TESSERA_COMPILER_OPS_POOL_H_
#define TESSERA_COMPILER_OPS_POOL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"
#include "compiler/te/tensor.h"

namespace tessera {
namespace ops {

/// The attributes of a 2-D pooling window, with ONNX's defaults.
struct PoolAttrs {
  std::vector<int64_t> kernel_shape;         ///< window size per spatial axis
  std::vector<int64_t> strides = {1, 1};     ///< per spatial axis
  std::vector<int64_t> pads = {0, 0, 0, 0};  ///< begins of both axes, then ends
  std::vector<int64_t> dilations;            ///< per spatial axis (only ones are supported)
  bool ceil_mode = false;                    ///< a last partial window counts
  bool count_include_pad = false;            ///< AveragePool divides by the whole window
  int64_t storage_order = 0;                 ///< MaxPool's Indices order (only 0)
  std::string auto_pad = "NOTSET";           ///< NOTSET or VALID (others are refused)
};

/// The attributes of MaxPool or AveragePool `node`.
PoolAttrs ParsePoolAttrs(const graph::Node& node);

/// MaxPool or AveragePool `node` over axes 2 and 3 of `data` (NCHW, or NCHW[bn]c with the block
/// innermost), whose plain input shape is `xs`; the output has `out_shape` (the rank of `data`)
/// and the compute carries `tag` ("pool", or "pool_NCHWc" for blocked data).
te::Tensor PoolWindow(const graph::Node& node, const te::Tensor& data,
                      const std::vector<int64_t>& xs, const std::vector<int64_t>& out_shape,
                      const std::string& tag);

}  // namespace ops
}  // namespace tessera

#endif  // TESSERA_COMPILER_OPS_POOL_H_
