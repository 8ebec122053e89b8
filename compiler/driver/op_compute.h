/// \file
/// Private to `build_model`: graph operators as tensor expressions through the operator registry
/// (the plain computes of operators without a template, and the epilogues fused after templates;
/// the computes themselves are the `ops::OpDef`s'), and the default schedule of a fused group
/// (injective stages inlined, the rest parallel and vectorized, or on a GPU one thread per output
/// element).
#ifndef TESSERA_COMPILER_DRIVER_OP_COMPUTE_H_
#define TESSERA_COMPILER_DRIVER_OP_COMPUTE_H_

#include <string>
#include <vector>

#include "compiler/graph/graph.h"
#include "compiler/ops/operand.h"
#include "compiler/te/schedule.h"
#include "compiler/te/tensor.h"

namespace tessera {
namespace driver {

/// A kernel operand (see `ops::Operand`).
using ops::Operand;
/// Index variables as expressions (see `ops::E`).
using ops::E;
/// The element type kernels use for a graph type (see `ops::KernelType`).
using ops::KernelType;
/// Element `index` of `operand` broadcast to an output of rank `index.size()` (see `ops::Read`).
using ops::Read;

/// The compute of output `output` of `node` over `inputs` (one per node input; null tensors
/// for omitted optional inputs): its `ops::OpDef::compute`. Throws `UserError` naming the node
/// for unsupported cases and for operators without a run-time kernel.
te::Tensor ComputeNode(const graph::Graph& g, const graph::Node& node,
                       const std::vector<Operand>& inputs, size_t output = 0);

/// MaxPool or AveragePool `node` computed in the NCHW[bn]c layout: `blocked` is its input
/// (`input_shape` in NCHW), the result is `[n, c / bn, oh, ow, bn]`. Windows read whole channel
/// blocks, so the default schedule vectorizes along the block.
te::Tensor PoolNCHWc(const graph::Graph& g, const graph::Node& node, const te::Tensor& blocked,
                     const std::vector<int64_t>& input_shape);

/// The default schedule of a kernel computing `output`: stages without reductions are inlined,
/// the others (and the output) run their outer loops in parallel (fused until the parallel loop
/// has 64 iterations, the loops inside it serial) and the innermost one in vectors.
te::Schedule DefaultSchedule(const te::Tensor& output);

/// The default GPU schedule of a kernel computing `output`: stages without reductions are
/// inlined, the others (and the output) get one thread per output element
/// (`topi::ScheduleInjectiveCUDA`), each its own kernel launch; a scalar reduction is computed by
/// each thread of the output that reads it. Throws `UserError` naming `what` for a scalar output
/// (no axis to spread over threads: give it one) or a scalar the output does not read directly.
te::Schedule DefaultScheduleCUDA(const te::Tensor& output, const std::string& what);

}  // namespace driver
}  // namespace tessera

#endif  // TESSERA_COMPILER_DRIVER_OP_COMPUTE_H_
