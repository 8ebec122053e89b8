// ModelPlan::ToText: the plan as stable text (`tessera compile --print-plan`, pinned by tests).
#include <sstream>

#include "compiler/driver/model_plan.h"

namespace tessera {
namespace {

std::string Layout(int64_t block) {
  return block == 0 ? "plain" : "NCHW" + std::to_string(block) + "c";
}

// " out=NCHW16c halo=1": the layout `value`'s producer writes it in.
std::string Output(const ModelPlan& plan, int value) {
  const ValuePlan& vp = plan.values[value];
  std::string s = " out=" + Layout(vp.block);
  auto halo = vp.halos.find(vp.block);
  if (vp.block > 0 && halo != vp.halos.end() && halo->second > 0) {
    s += " halo=" + std::to_string(halo->second);
  }
  return s;
}

std::string GroupLine(const ModelPlan& plan, size_t index) {
  const GroupPlan& gp = plan.groups[index];
  const graph::Graph& g = plan.graph;
  std::ostringstream os;
  os << "g" << index << " " << gp.name << "  ";
  if (gp.task) {
    os << gp.task->workload_key() << " [" << gp.source << "]";
  } else {
    os << KernelPathName(gp.path);
  }
  const bool conv = gp.path == KernelPath::kConvCPU || gp.path == KernelPath::kWinogradCPU ||
                    gp.path == KernelPath::kDepthwiseCPU;
  if (conv || gp.path == KernelPath::kPoolBlocked || gp.path == KernelPath::kConcatBlocked ||
      gp.path == KernelPath::kShuffleBlocked) {
    os << " in=" << Layout(gp.in_block);
  }
  if (gp.input_halo) os << " in-halo";
  if (gp.natural > 0) os << " view=" << Layout(gp.natural);
  const graph::Node& anchor = g.nodes[gp.nodes[0]];
  if (gp.nodes.size() == 1 && anchor.outputs.size() > 1) {
    for (int out : anchor.outputs) os << Output(plan, out);
  } else {
    os << Output(plan, g.nodes[gp.nodes.back()].outputs[0]);
  }
  if (gp.raw_halo > 0) os << " raw-halo=" << gp.raw_halo;
  if (gp.fused) os << " fused";
  if (gp.config) os << " " << gp.config->ToString();
  return os.str();
}

}  // namespace

const char* KernelPathName(KernelPath path) {
  switch (path) {
    case KernelPath::kPlain:
      return "plain";
    case KernelPath::kReshapeAlias:
      return "alias";
    case KernelPath::kPoolBlocked:
      return "pool-blocked";
    case KernelPath::kConcatBlocked:
      return "concat-blocked";
    case KernelPath::kShuffleBlocked:
      return "shuffle-blocked";
    case KernelPath::kConvCPU:
      return "conv";
    case KernelPath::kConvInt8CPU:
      return "conv-int8";
    case KernelPath::kWinogradCPU:
      return "winograd";
    case KernelPath::kDepthwiseCPU:
      return "depthwise";
    case KernelPath::kDenseCPU:
      return "dense";
    case KernelPath::kDenseInt8CPU:
      return "dense-int8";
    case KernelPath::kBatchMatmulCPU:
      return "batch_matmul";
    case KernelPath::kConvCUDA:
      return "conv-cuda";
    case KernelPath::kDenseCUDA:
      return "dense-cuda";
  }
  return "?";
}

std::string ModelPlan::ToText() const {
  std::ostringstream os;
  os << "plan for '" << target << "': " << groups.size() << " groups\n";
  for (size_t i = 0; i < groups.size(); ++i) os << GroupLine(*this, i) << "\n";
  os << "blocked values:\n";
  for (size_t v = 0; v < values.size(); ++v) {
    const ValuePlan& vp = values[v];
    if (vp.halos.empty()) continue;
    os << "  " << graph.values[v].name << ":";
    for (const auto& [block, halo] : vp.halos) {
      os << " " << Layout(block);
      if (halo > 0) os << "(halo " << halo << ")";
    }
    if (vp.plain) os << " plain";
    os << "\n";
  }
  os << "tasks:\n";
  for (const ModelTask& t : tasks) {
    os << "  " << t.workload_key << " x" << t.weight << (t.tuned ? " tuned" : " untuned");
    if (!t.alternative_to.empty()) os << " (alternative to " << t.alternative_to << ")";
    os << "\n";
  }
  return os.str();
}

}  // namespace tessera
