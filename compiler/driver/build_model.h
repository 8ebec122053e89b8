/// \file
/// `BuildModel`: compiles a model's graph into what `runtime::GraphExecutor` runs: one kernel
/// library (every kernel its own LLVM module, all linked into one shared library), the execution
/// graph with its memory plan, and the parameters (weights packed once for the layouts the kernels
/// read).
///
/// For a `cuda` target, convolutions and dense layers run through their GPU templates
/// (`conv2d_nchw.cuda`, `depthwise_conv2d.cuda`, `dense.cuda`; NCHW data, weights as they are)
/// and every other kernel through the default GPU schedule (one thread per output element); the
/// kernels form one CUDA module (PTX and host launchers) and the graph runs on the host.
///
/// On a CPU, each fused group of the graph becomes one kernel, except convolutions and dense
/// layers, which run through their x86 templates (`conv2d_NCHWc.x86` with data packed to NCHWc and
/// the weights packed at compile time, `depthwise_conv2d.x86`, `dense.x86`, `batch_matmul.x86`)
/// followed by one epilogue kernel (layout back to NCHW, bias, the fused elementwise chain). Each
/// template workload uses its config source's best record for the exact target, else its
/// fallback config.
#ifndef TESSERA_COMPILER_DRIVER_BUILD_MODEL_H_
#define TESSERA_COMPILER_DRIVER_BUILD_MODEL_H_

#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "compiler/driver/config_source.h"
#include "compiler/driver/model_task.h"
#include "compiler/graph/graph.h"
#include "runtime/exec_graph.h"
#include "runtime/module.h"
#include "runtime/ndarray.h"

namespace tessera {

/// The template config one kernel of a model runs, and where it came from.
struct KernelConfig {
  std::string node;          ///< the graph node the kernel computes (its fused group's first)
  std::string workload_key;  ///< the template workload
  std::string config;        ///< the config, as `space::ConfigEntity::ToString` writes it
  /// "record", "record, input blocks of N" (the record's schedule reading its producer's
  /// block of N channels, a config nobody measured), "nearest record" (the record of a nearby
  /// shape, `ChosenConfig::nearest_workload`), "cost model" (`ChosenConfig::predicted_from`) or
  /// "fallback".
  std::string source;
  /// The config its source handed out, before it was adapted to its producer's block: what
  /// the source gives again for the same build (equal to `config` where not adapted).
  std::string chosen;
};

/// Knobs of `BuildModel`.
struct ModelBuildOptions {
  std::string target = "llvm";  ///< target string, as the tuning log keys it
  /// Template configs come from here (`tuner::LogConfigSource` over a local log or the
  /// tracker's; null: fallbacks, announced).
  const ConfigSource* configs = nullptr;
  std::ostream* warnings = nullptr;  ///< fallback notices (null: std::cerr)
  /// Called with the graph after each graph pass (e.g. `--print-graph`).
  std::function<void(const std::string& pass, const graph::Graph&)> after_pass;
  /// With a `cuda` target: every kernel's GPU schedule, checked against the device limits, is
  /// compiled for this CPU instead, its loops bound to blockIdx/threadIdx run serially (a host
  /// LLVM module). Checks the values the GPU kernels compute without a GPU (tests); barriers and
  /// the cooperation of a block's threads are not checked.
  bool emulate_gpu_serially = false;
};

/// A compiled model.
struct ModelBuild {
  runtime::Module kernels;                         ///< the kernel library
  runtime::ExecGraph graph;                        ///< kernel calls and memory plan
  std::map<std::string, runtime::NDArray> params;  ///< parameters by tensor name
  std::vector<ModelTask> tasks;                    ///< template workloads, in first-use order
  std::vector<KernelConfig> configs;        ///< the config of every template kernel, in graph order
  std::string library_file;                 ///< the linked library (empty: `kernels` exports)
  std::shared_ptr<const void> library_dir;  ///< keeps `library_file`'s directory alive
  int64_t planned_bytes = 0;                ///< intermediate memory after buffer reuse (the peak)
  int64_t unplanned_bytes = 0;              ///< the same without reuse
  /// Quantized convolutions and dense layers (of a QDQ or operator-form int8 model) run through
  /// the int8 templates (`conv2d_NCHWc_int8.x86`, `dense_int8.x86`, where the target has a byte
  /// dot product).
  int quantized_in_int8 = 0;
  /// Quantized convolutions and matrix products computed in float32 on dequantized values.
  int quantized_in_float = 0;
  /// Integer operators computed in integers (QLinearConv, QLinearMatMul with run-time weights,
  /// ConvInteger, MatMulInteger).
  int quantized_in_integers = 0;

  /// "tuned 3/20 tasks, 12.5% of template FLOPs; untuned: ..." (naming the untuned workloads;
  /// tasks whose records came from the default thread count are counted in parentheses, and an
  /// untuned workload whose records were not used says why, as "KEY (records of template version
  /// 1, this build has 2)"); an int8 model's line says how many quantized operators run in int8
  /// templates, in float32 and as integer plain computes.
  std::string CoverageLine() const;
  /// The share of the template FLOPs (weighted by calls) that tuned tasks compute, in percent, as
  /// the coverage line prints it (100 for a model without template tasks).
  double TunedFlopsPercent() const;
  /// Writes the model directory `dir` (created if needed): the files of
  /// `runtime::ModelFiles`. Throws `UserError` when it cannot.
  void Save(const std::string& dir) const;
};

/// Optimizes `g` (the graph pass pipeline) and compiles it: `EmitModel(PlanModel(g, options))`
/// (compiler/driver/model_plan.h). Throws `UserError` naming the node for what cannot be compiled.
ModelBuild BuildModel(graph::Graph g, const ModelBuildOptions& options = {});

/// The template workloads `BuildModel` would build for `g` (after the same passes), with their
/// weights and FLOPs, without compiling anything: `PlanModel(g, options).tasks`; `tuned` says
/// whether the log has a record.
std::vector<ModelTask> ExtractTasks(graph::Graph g, const ModelBuildOptions& options = {});

/// A note for tuning `workload_key` (template `templ`) for `target` when model builds for that
/// target never run `templ` (its family's strategy runs the `.x86` templates for x86 and the C
/// target, the `.arm` ones for aarch64, the `.cuda` ones for CUDA; dense.x86 for an aarch64
/// board is another family's): it names the template of the same operator they run and its key
/// to tune; "" when they run `templ`, or run no such operator.
std::string TemplateOfAnotherFamilyNote(const std::string& workload_key, const std::string& templ,
                                        const std::string& target);

}  // namespace tessera

#endif  // TESSERA_COMPILER_DRIVER_BUILD_MODEL_H_
