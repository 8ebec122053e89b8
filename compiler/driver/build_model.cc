#include "compiler/driver/build_model.h"

#include <algorithm>
#include <sstream>

#include "common/file.h"
#include "compiler/driver/emitter.h"
#include "compiler/driver/model_plan.h"
#include "compiler/driver/planner.h"
#include "compiler/driver/target.h"
#include "runtime/params.h"

namespace tessera {

double ModelBuild::TunedFlopsPercent() const {
  double flops = 0, tuned_flops = 0;
  for (const ModelTask& t : tasks) {
    if (!t.alternative_to.empty()) continue;  // counted as the task it replaces
    flops += t.flops * t.weight;
    if (t.tuned) tuned_flops += t.flops * t.weight;
  }
  return flops > 0 ? 100.0 * tuned_flops / flops : 100.0;
}

std::string ModelBuild::CoverageLine() const {
  int tuned = 0, other_threads = 0;
  std::string untuned;
  int counted = 0;
  for (const ModelTask& t : tasks) {
    if (!t.alternative_to.empty()) continue;  // counted as the task it replaces
    ++counted;
    other_threads += t.other_threads ? 1 : 0;
    if (t.tuned) {
      ++tuned;
    } else {
      untuned += (untuned.empty() ? "" : ", ") + t.workload_key;
      if (!t.unused_records.empty()) untuned += " (" + t.unused_records + ")";
      if (!t.nearest_workload.empty()) untuned += " (config of " + t.nearest_workload + ")";
      if (t.predicted) untuned += " (config of the cost model)";
    }
  }
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(1);
  os << "coverage: tuned " << tuned << "/" << counted << " tasks, "
     << (counted > 0 ? TunedFlopsPercent() : 0.0) << "% of template FLOPs";
  if (other_threads > 0) {
    os << " (" << other_threads
       << " with records of the default thread count: none at -num-threads)";
  }
  if (!untuned.empty()) os << "; untuned: " << untuned;
  if (quantized_in_int8 + quantized_in_float + quantized_in_integers > 0) {
    os << "; int8: " << quantized_in_int8 << " quantized operators in int8 templates, "
       << quantized_in_float << " quantized operators in float32 on dequantized values, "
       << quantized_in_integers << " integer operators as plain computes";
  }
  return os.str();
}

void ModelBuild::Save(const std::string& dir) const {
  MakeDirectories(dir, "compiled model directory");
  WriteFile(dir + "/" + runtime::ModelFiles::kGraph, graph.ToText(), "execution graph");
  runtime::SaveParamsToFile(params, dir + "/" + runtime::ModelFiles::kParams);
  const std::string kernels_path = dir + "/" + runtime::ModelFiles::kKernels;
  if (library_file.empty()) {
    kernels.export_library(kernels_path);
    return;
  }
  WriteFile(kernels_path, ReadFile(library_file, "kernel library"), "kernel library");
}

namespace {

// The coverage line's int8 counts: quantized convolutions through the int8 template, float
// operators reading dequantized values, and the integer operators left as plain computes.
void CountQuantized(const ModelPlan& plan, ModelBuild* build) {
  const graph::Graph& g = plan.graph;
  const std::vector<int> producer = g.Producers();
  for (const GroupPlan& group : plan.groups) {
    const graph::Node& node = g.nodes[group.nodes[0]];
    if (node.op == "QLinearConv" || node.op == "QLinearMatMul" || node.op == "ConvInteger" ||
        node.op == "MatMulInteger") {
      ++build->quantized_in_integers;
    }
    if ((node.op != "Conv" && node.op != "Gemm" && node.op != "MatMul") || node.inputs.empty()) {
      continue;
    }
    const int p = producer[node.inputs[0]];
    if (p < 0 || (g.nodes[p].op != "QuantizeDequantize" && g.nodes[p].op != "DequantizeLinear")) {
      continue;
    }
    if (group.path == KernelPath::kConvInt8CPU || group.path == KernelPath::kDenseInt8CPU) {
      ++build->quantized_in_int8;
    } else {
      ++build->quantized_in_float;
    }
  }
}

// The templates model builds for `target` run: its family's strategy.
std::vector<std::string> TemplatesForTarget(const Target& target) {
  const driver::Strategy& s = driver::StrategyFor(target);
  std::vector<std::string> names;
  for (const char* name : {s.conv, s.depthwise, s.group_conv, s.dense, s.batch_matmul, s.winograd,
                           s.int8_conv, s.int8_dense}) {
    if (name != nullptr) names.push_back(name);
  }
  return names;
}

}  // namespace

ModelBuild EmitModel(const ModelPlan& plan, const ModelBuildOptions& options) {
  driver::ModelEmitter builder(plan, options);
  builder.Run();
  ModelBuild build = builder.Finish();
  CountQuantized(plan, &build);
  return build;
}

ModelBuild BuildModel(graph::Graph g, const ModelBuildOptions& options) {
  return EmitModel(PlanModel(std::move(g), options), options);
}

std::string TemplateOfAnotherFamilyNote(const std::string& workload_key, const std::string& templ,
                                        const std::string& target) {
  const std::vector<std::string> used = TemplatesForTarget(Target(target));
  if (std::find(used.begin(), used.end(), templ) != used.end()) return "";
  const std::string op = templ.substr(0, templ.find('.'));
  for (const std::string& twin : used) {
    if (twin.substr(0, twin.find('.')) != op) continue;
    return "note: model builds for '" + target + "' run " + twin + ", not " + templ +
           ": these records configure no model build for it (tune '" + twin +
           workload_key.substr(templ.size()) + "' for one)";
  }
  return "";
}

}  // namespace tessera
