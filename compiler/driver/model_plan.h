/// \file
/// `PlanModel`: every decision of a model build, made in one pass over the optimized graph's
/// fused groups in topological order and recorded in a plain, printable `ModelPlan`: each group's
/// kernel path and template workload, its config and where it came from, the channel blocks of
/// convolutions, the layout each value is written in and the halo of each blocked form, whether a
/// template's output stage runs the group's epilogue, and the model's task list. `EmitModel`
/// carries a plan out; `BuildModel` is the two in a row, `ExtractTasks` the plan's task list.
///
/// `ModelPlan::ToText` prints it (`tessera compile --print-plan`), one line per group:
///
///     g3 conv1+Relu  conv2d_NCHWc.x86(1,3,32,32,16,3,3,1,1,float32) [fallback] in=NCHW8c
///        out=NCHW16c halo=1 fused
///
/// (on one line), then the values written blocked and the tasks.
#ifndef TESSERA_COMPILER_DRIVER_MODEL_PLAN_H_
#define TESSERA_COMPILER_DRIVER_MODEL_PLAN_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/driver/build_model.h"
#include "compiler/driver/target.h"
#include "compiler/graph/graph.h"
#include "compiler/space/config_space.h"
#include "compiler/task/task.h"
#include "compiler/topi/conv2d_nchwc_x86.h"

namespace tessera {

/// How a fused group runs.
enum class KernelPath {
  kPlain,           ///< its tensor expressions, default schedule
  kReshapeAlias,    ///< a reshape of a computed value: a view of its buffer, no kernel
  kPoolBlocked,     ///< a pooling in its input's NCHW[bn]c layout
  kConcatBlocked,   ///< a channel concatenation of inputs all in one NCHW[bn]c layout
  kShuffleBlocked,  ///< a concatenation and channel shuffle in its inputs' NCHW[bn]c layout
  kConvCPU,         ///< conv2d_NCHWc.x86/.arm or group_conv2d_NCHWc.x86/.arm
  kConvInt8CPU,     ///< a quantized convolution through conv2d_NCHWc_int8.x86/.arm
  kWinogradCPU,     ///< conv2d_winograd_NCHWc.x86/.arm
  kDepthwiseCPU,    ///< depthwise_conv2d_NCHWc.x86/.arm
  kDenseCPU,        ///< dense.x86/.arm
  kDenseInt8CPU,    ///< a quantized dense layer through dense_int8.x86/.arm
  kBatchMatmulCPU,  ///< batch_matmul.x86/.arm
  kConvCUDA,        ///< conv2d_nchw.cuda or depthwise_conv2d.cuda
  kDenseCUDA,       ///< dense.cuda
};

/// The short name `ModelPlan::ToText` prints for `path` ("conv", "winograd", "plain", ...).
const char* KernelPathName(KernelPath path);

/// The plan of one fused group.
struct GroupPlan {
  std::vector<int> nodes;  ///< the group's nodes (indices into the plan's graph), anchor first
  std::string name;        ///< the anchor's name, then "+Op" for each chained node
  KernelPath path = KernelPath::kPlain;
  std::shared_ptr<const task::Task> task;     ///< the template workload (null: none)
  std::optional<space::ConfigEntity> config;  ///< its config
  std::string source;                         ///< where the config came from (`KernelConfig`)
  std::string chosen;      ///< the config before it was adapted (`KernelConfig::chosen`)
  topi::Conv2dShape conv;  ///< convolutions: the shape
  /// Convolutions: the data's and the output's channel blocks; a blocked pooling: its block.
  int64_t in_block = 0, out_block = 0;
  /// The template's output stage runs the bias and the elementwise chain (one kernel).
  bool fused = false;
  /// Blocked convolutions: the data is read inside its halo (no padded copy).
  bool input_halo = false;
  /// Unfused blocked convolutions without bias or chain: the halo of the template's output.
  int64_t raw_halo = 0;
  /// Plain groups: the block of the first input read through a plain view of its blocked form.
  int64_t natural = 0;
  /// int8 convolutions and dense layers: the scale and zero point of the input's quantization
  /// to uint8 (its QuantizeDequantize's), which the emitter quantizes the float input with.
  float input_scale = 1;
  int64_t input_zero = 0;
};

/// The layout plan of one graph value.
struct ValuePlan {
  /// The layout its producer writes it in: 0 plain NCHW, else NCHW[block]c.
  int64_t block = 0;
  /// Every blocked form the build holds (its producer's and those packed, repacked or viewed for
  /// readers), by block, with the rows and columns of zeros kept around it (its halo).
  std::map<int64_t, int64_t> halos;
  /// A plain form exists (written so, a graph input or parameter, or unpacked for a reader).
  bool plain = false;
};

/// Every decision of a model build.
struct ModelPlan {
  graph::Graph graph;                 ///< the optimized graph
  std::string target;                 ///< the target string
  std::vector<GroupPlan> groups;      ///< in topological order
  std::vector<ValuePlan> values;      ///< one per graph value
  std::vector<ModelTask> tasks;       ///< template workloads, in first-use order
  std::vector<KernelConfig> configs;  ///< the config of every template kernel, in graph order
  /// The hardware figures the planner weighed (`HardwareOf(target)`; not printed).
  TargetHardware hardware{};

  /// Stable text: one line per group, then the values written blocked, then the tasks.
  std::string ToText() const;
};

/// Optimizes `g` (the graph pass pipeline) and plans its build: configs come from
/// `options.configs` (fallbacks announced on `options.warnings`). Throws `UserError` for what
/// cannot be compiled.
ModelPlan PlanModel(graph::Graph g, const ModelBuildOptions& options = {});

/// Carries `plan` out: tensors, packed weights, layout kernels, template and plain kernels, all
/// lowered and compiled for `plan.target` (`options` gives the warnings stream and the GPU
/// emulation switch).
ModelBuild EmitModel(const ModelPlan& plan, const ModelBuildOptions& options = {});

}  // namespace tessera

#endif  // TESSERA_COMPILER_DRIVER_MODEL_PLAN_H_
