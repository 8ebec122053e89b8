/// \file
/// The typed attributes of MaxPool and AveragePool, parsed in one place for the check of
/// supported values, shape inference and the computes.
#ifndef TESSERA_COMPILER_OPS_POOL_H_
#define TESSERA_COMPILER_OPS_POOL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"

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

}  // namespace ops
}  // namespace tessera

#endif  // TESSERA_COMPILER_OPS_POOL_H_
