/// \file
/// Helpers of the operators' evaluation at compile time: element-wise maps over broadcast
/// inputs and gathers of the data input's elements.
#ifndef TESSERA_COMPILER_OPS_EVALUATE_UTIL_H_
#define TESSERA_COMPILER_OPS_EVALUATE_UTIL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "compiler/graph/graph.h"

namespace tessera {
namespace ops {

/// A constant being computed.
using Data = std::shared_ptr<graph::TensorData>;

/// Row-major strides (in elements) of `shape`.
std::vector<int64_t> Strides(const std::vector<int64_t>& shape);

/// Flat index into `in` (broadcast to `out`) of the output element `flat`.
int64_t BroadcastIndex(const std::vector<int64_t>& out, const std::vector<int64_t>& in,
                       int64_t flat);

/// Input `i` of `node` (present: inference has checked it).
const graph::Value& Input(const graph::Graph& g, const graph::Node& node, size_t i);

/// A zero-filled constant of output `i`'s inferred type and shape.
Data OutputData(const graph::Graph& g, const graph::Node& node, size_t i = 0);

/// Output 0 of `node`, each element `f` of the (broadcast) elements of all inputs.
Data MapElements(const graph::Graph& g, const graph::Node& node,
                 const std::function<double(const std::vector<double>&)>& f);

/// Output 0 of `node`, each element copied from the element `source(i)` of input 0; throws
/// `UserError` for an index out of range.
Data Gathered(const graph::Graph& g, const graph::Node& node,
              const std::function<int64_t(int64_t)>& source);

/// Output 0 of `node` as a copy of input 0 (same element order).
std::vector<Data> CopyInput(const graph::Graph& g, const graph::Node& node);

/// `d` as a one-output result.
std::vector<Data> One(Data d);

}  // namespace ops
}  // namespace tessera

#endif  // TESSERA_COMPILER_OPS_EVALUATE_UTIL_H_
