#include "compiler/driver/op_compute.h"

#include <functional>

#include "compiler/ir/op.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/pool.h"
#include "compiler/support/error.h"
#include "compiler/topi/gpu_schedule.h"

namespace tessera {
namespace driver {
namespace {

using ir::DataType;
using ir::Expr;
using ir::Var;

Expr I(int64_t v) { return ir::IntImm(DataType::Int(32), v); }

bool IsConstExtent(const ir::IterVar& iv, int64_t* extent) {
  const int64_t* v = ir::AsConstInt(iv->dom.extent);
  if (v) *extent = *v;
  return v != nullptr;
}

// The extent of `iv`, 1 when it is not a constant (what the schedule's size estimates count).
int64_t ExtentOrOne(const ir::IterVar& iv) {
  int64_t extent = 1;
  IsConstExtent(iv, &extent);
  return extent;
}

// A reduction into an output whose innermost axis is too short to vectorize (softmax's and layer
// norm's row sums and maxima, [rows, 1]) runs one scalar chain per output: LLVM may not reorder
// a float sum, and a scalar exp is one libm call. Factored instead into `lanes` partial results
// (stage `t.rf`, computed per output element, vectorized across the lanes), which `t` then
// combines: softmax over BERT's 12x128x128 scores took 1.2-1.9 ms, mostly scalar expf calls.
void VectorizeReduction(te::Schedule& s, const te::Tensor& t, size_t rank) {
  const auto* compute = static_cast<const te::ComputeOpNode*>(t.op().get());
  int64_t last = 1, extent = 0;
  IsConstExtent(compute->axis[rank - 1], &last);
  if (last >= 4 || compute->reduce_axis.size() != 1 ||
      !IsConstExtent(compute->reduce_axis[0], &extent)) {
    return;
  }
  // A length with no such divisor (ViT's 197-token rows) takes 8 lanes and a guarded tail, which
  // loop partitioning keeps out of the whole vectors.
  const int64_t lanes = extent % 16 == 0 ? 16 : 8;
  if (extent < 2 * lanes) return;
  te::Stage stage = s[t];
  auto [ko, ki] = stage.split(stage.reduce_axis(0), I(lanes));
  te::Tensor partial = s.rfactor(t, ki, static_cast<int>(rank));
  te::Stage p = s[partial];
  std::vector<ir::IterVar> order;
  for (size_t d = 0; d < rank; ++d) order.push_back(p.axis(d));
  order.push_back(p.reduce_axis(0));
  order.push_back(p.axis(rank));
  p.reorder(order);
  p.vectorize(p.axis(rank));
  p.compute_at(stage, stage.axis(rank - 1));
}

void ScheduleStage(te::Schedule& s, const te::Tensor& t) {
  te::Stage stage = s[t];
  const auto* op = t.op().get();
  const auto* compute = static_cast<const te::ComputeOpNode*>(op);
  const size_t rank = compute->axis.size();
  if (rank == 0) return;
  // The work of the loop nest: its outputs times the reduction's length.
  int64_t total = 1;
  for (const auto& iv : compute->axis) total *= ExtentOrOne(iv);
  for (const auto& iv : compute->reduce_axis) total *= ExtentOrOne(iv);
  VectorizeReduction(s, t, rank);
  const int64_t last = ExtentOrOne(compute->axis[rank - 1]);
  ir::IterVar inner_most = stage.axis(rank - 1);
  ir::IterVar outer_of_last = inner_most;
  bool vectorized = false;
  // Pooling windows read the input through clamped (and, with a stride, strided) indices, which
  // are no ramp: vectorizing their output axis here makes every tap a gather (9 vgatherdps per
  // 8 outputs of a 3x3 MaxPool, 0.66 ms for ResNet-18's). Left serial, LLVM's loop vectorizer
  // takes the loop itself and reads the stride-2 taps with wide loads and shuffles (0.24 ms).
  const bool window_reads = compute->tag == "pool";  // "pool_NCHWc" reads whole blocks
  if (last >= 4 && !window_reads) {
    // An axis of no multiple of 4 (a 58-channel block, a 55-pixel row) is one vector whole:
    // split by 8, its tail's guard left the entire loop scalar.
    int64_t factor = last % 16 == 0  ? 16
                     : last % 8 == 0 ? 8
                     : last % 4 == 0 ? 4
                     : last <= 64    ? last
                                     : 8;
    // A blocked pool's taps all read the same pixel of a channel block: the whole block as the
    // vector shares one tap's index arithmetic among all its lanes.
    if (compute->tag == "pool_NCHWc" && last <= 64 && last % 16 == 0) factor = last;
    auto [lo, li] = stage.split(inner_most, I(factor));
    outer_of_last = lo;
    std::vector<ir::IterVar> order = {lo};
    for (size_t r = 0; r < compute->reduce_axis.size(); ++r) order.push_back(stage.reduce_axis(r));
    order.push_back(li);
    stage.reorder(order);
    stage.vectorize(li);
    vectorized = true;
  }
  // One parallel launch costs microseconds: small kernels stay on the calling thread.
  if (total < 4096) return;
  // Outer axes fused into one parallel loop until it has iterations enough to share out; the
  // axes inside stay loops of their own, whose indices need no division of the fused one (a
  // blocked output's unpacking divided it by three extents for every vector it copied).
  constexpr int64_t kParallelIterations = 64;
  ir::IterVar fused = rank > 1 ? stage.axis(0) : outer_of_last;
  int64_t iterations = ExtentOrOne(compute->axis[0]);
  for (size_t d = 1; d + 1 < rank && iterations < kParallelIterations; ++d) {
    fused = stage.fuse(fused, stage.axis(d));
    iterations *= ExtentOrOne(compute->axis[d]);
  }
  if (rank > 1 && vectorized && iterations < kParallelIterations) {
    fused = stage.fuse(fused, outer_of_last);
  }
  stage.parallel(fused);
}

}  // namespace

te::Tensor ComputeNode(const graph::Graph& g, const graph::Node& node,
                       const std::vector<Operand>& inputs, size_t output) {
  const ops::OpDef* def = ops::FindOp(node.op);
  if (def && def->compute) return def->compute(g, node, inputs, output);
  TESSERA_USER_ERROR() << "node '" << node.name << "' (" << node.op
                       << "): has no run-time kernel (its inputs must be compile-time constants)";
  return te::Tensor();
}

te::Tensor PoolNCHWc(const graph::Graph& g, const graph::Node& node, const te::Tensor& blocked,
                     const std::vector<int64_t>& input_shape) {
  const int64_t bn = *ir::AsConstInt(blocked.shape()[4]);
  std::vector<int64_t> out = g.values[node.outputs[0]].shape;
  out[1] /= bn;
  out.push_back(bn);
  return ops::PoolWindow(node, blocked, input_shape, out, "pool_NCHWc");
}

namespace {

// The schedule of a kernel computing `output`: stages without reductions inlined, the others and
// the output scheduled by `schedule_stage`.
te::Schedule InlineInjective(
    const te::Tensor& output,
    const std::function<void(te::Schedule&, const te::Tensor&)>& schedule_stage) {
  te::Schedule s = te::create_schedule({output});
  for (const te::Operation& op : te::PostOrderOps({output.op()})) {
    if (op->type_name() != std::string("ComputeOp") || op.same_as(output.op())) continue;
    const auto* compute = static_cast<const te::ComputeOpNode*>(op.get());
    if (compute->reduce_axis.empty()) {
      s[op.output()].compute_inline();
    } else {
      schedule_stage(s, op.output());
    }
  }
  schedule_stage(s, output);
  return s;
}

}  // namespace

te::Schedule DefaultSchedule(const te::Tensor& output) {
  return InlineInjective(output, ScheduleStage);
}

te::Schedule DefaultScheduleCUDA(const te::Tensor& output, const std::string& what) {
  TESSERA_USER_CHECK(!output.shape().empty())
      << what << ": the scalar '" << output.name()
      << "' cannot be a GPU kernel's output (no axis to spread over threads)";
  std::vector<te::Tensor> scalars;
  ir::IterVar thread;
  te::Schedule s = InlineInjective(output, [&](te::Schedule& s, const te::Tensor& t) {
    if (t.shape().empty()) {
      scalars.push_back(t);
    } else {
      ir::IterVar tx = topi::ScheduleInjectiveCUDA(s[t]);
      if (t.op().same_as(output.op())) thread = tx;
    }
  });
  // A scalar (a reduction over every axis) has no axis to spread over threads: each thread of
  // the output computes it itself.
  for (const te::Tensor& t : scalars) {
    try {
      s[t].compute_at(s[output], thread);
    } catch (const UserError& e) {
      TESSERA_USER_ERROR() << what << ": the scalar '" << t.name()
                           << "' is not read by the kernel's output directly, which a GPU "
                              "kernel needs ("
                           << e.what() << ")";
    }
  }
  return s;
}

}  // namespace driver
}  // namespace tessera
