// PlanModel: the planner walks the fused groups in topological order, as the emitter will, and
// decides each group's kernel, template config and layouts. It tracks which forms of each value
// the build will hold (plain, NCHW[bn]c for each bn) because later decisions read them: a plain
// group reads its first blocked-only input through a view and computes in that block, and a halo
// is sized by the convolutions planned when its form is made.
#include "compiler/driver/model_plan.h"

#include <algorithm>
#include <set>

#include "compiler/driver/channel_shuffle.h"
#include "compiler/driver/planner.h"
#include "compiler/driver/vector_unit.h"
#include "compiler/graph/pipeline.h"
#include "compiler/graph/shape.h"
#include "compiler/ops/conv.h"
#include "compiler/ops/op_def.h"
#include "compiler/support/error.h"
#include "compiler/topi/depthwise_conv2d_nchwc_x86.h"

namespace tessera {
namespace driver {

Planner::Planner(ModelPlan& plan, const ModelBuildOptions& options)
    : plan_(plan),
      g_(plan.graph),
      options_(options),
      strategy_(StrategyFor(Target(options.target))),
      producer_(plan.graph.Producers()),
      is_output_(plan.graph.values.size(), false),
      byte_dot_product_(HasByteDotProduct(Target(options.target))) {
  for (int v : g_.outputs) is_output_[v] = true;
  plan_.values.resize(g_.values.size());
}

void Planner::Run() {
  std::vector<int> last_of_group;
  for (size_t n = 0; n < g_.nodes.size(); ++n) {
    const int group = g_.nodes[n].group;
    if (group >= static_cast<int>(last_of_group.size())) last_of_group.resize(group + 1, -1);
    last_of_group[group] = static_cast<int>(n);
  }
  for (int in : g_.inputs) plan_.values[in].plain = true;
  for (size_t n = 0; n < g_.nodes.size(); ++n) {
    if (last_of_group[g_.nodes[n].group] != static_cast<int>(n)) continue;
    GroupPlan gp;
    std::vector<const Node*> group;
    for (size_t m = 0; m <= n; ++m) {
      if (g_.nodes[m].group != g_.nodes[n].group) continue;
      gp.nodes.push_back(static_cast<int>(m));
      group.push_back(&g_.nodes[m]);
    }
    gp.name = GroupName(group);
    PlanGroup(gp, group);
    plan_.groups.push_back(std::move(gp));
  }
  for (int out : g_.outputs) Plain(out);
}

std::string GroupName(const std::vector<const graph::Node*>& group) {
  std::string name = group[0]->name;
  for (size_t i = 1; i < group.size(); ++i) name += "+" + group[i]->op;
  return name;
}

void Planner::PlanGroup(GroupPlan& gp, const std::vector<const Node*>& group) {
  const std::string& op = group[0]->op;
  if (op == "Conv" && (strategy_.blocked ? PlanConvBlocked(gp, group) : PlanConvNCHW(gp, group))) {
    return;
  }
  if ((op == "Gemm" || op == "MatMul") && PlanDense(gp, group)) return;
  if (op == "MatMul" && strategy_.batch_matmul && PlanBatchMatmul(gp, group)) return;
  PlanPlain(gp, group);
}

// ---- the forms each value is held in ----

void Planner::Plain(int value) {
  ValuePlan& vp = plan_.values[value];
  if (vp.plain) return;
  TESSERA_INTERNAL_CHECK(!vp.halos.empty() || g_.values[value].is_constant())
      << "value '" << g_.values[value].name << "' is used before it is computed";
  vp.plain = true;  // unpacked from its smallest block, or a parameter
}

void Planner::Blocked(int value, int64_t bn) {
  ValuePlan& vp = plan_.values[value];
  if (vp.halos.count(bn)) return;
  if (bn == 1 && vp.plain) {
    vp.halos[bn] = 0;  // the plain layout itself
    return;
  }
  const int64_t halo = HaloFor(value, bn);
  if (vp.plain || vp.halos.empty()) Plain(value);  // packed from the plain form
  vp.halos[bn] = halo;
}

void Planner::Write(int value, int64_t bn) {
  ValuePlan& vp = plan_.values[value];
  vp.block = bn;
  if (bn == 0) {
    vp.plain = true;
  } else {
    vp.halos[bn] = HaloFor(value, bn);
  }
}

int64_t Planner::ReadExternals(const std::vector<const Node*>& group, int bias, bool anchor) {
  std::set<int> seen;
  int64_t natural = 0;
  auto read = [&](int value) {
    const Value& v = g_.values[value];
    if (v.is_constant() && v.data->NumElements() == 1) return;  // an immediate
    if (!seen.insert(value).second) return;
    const ValuePlan& vp = plan_.values[value];
    if (!vp.plain && !vp.halos.empty()) {
      if (natural == 0) natural = vp.halos.begin()->first;  // read through a plain view
      return;
    }
    Plain(value);
  };
  if (bias >= 0) read(bias);
  if (anchor) {
    for (int in : group[0]->inputs) {
      if (in >= 0) read(in);
    }
  }
  for (size_t i = 1; i < group.size(); ++i) {
    for (int in : group[i]->inputs) {
      if (in >= 0 && in != group[i - 1]->outputs[0]) read(in);
    }
  }
  return natural;
}

// Rows and columns of zeros the NCHW[bn]c form of `value` keeps around it: the largest padding
// among the (not depthwise) blocked convolutions planned to read that form, which then read it
// in place instead of copying it into a padded buffer first (0.1 ms for each of ResNet-50's
// layer1 3x3 convolutions). Every other reader addresses the tensor inside the halo. Depthwise
// convolutions keep their own padding: read in place, MobileNetV2's ran slower (9.17 -> 9.39 ms
// at one thread, 5.06 -> 5.30 at two), their small kernels paying for their producers' halos.
// Only the convolutions planned so far count (as when the form was first built).
int64_t Planner::HaloFor(int value, int64_t bn) const {
  if (!strategy_.blocked) return 0;
  int64_t halo = 0;
  for (const Node& node : g_.nodes) {
    if (node.op != "Conv" || node.inputs.empty() || node.inputs[0] != value) continue;
    auto plan = conv_plans_.find(&node);
    // An int8 convolution reads its input's quantized words, padded inside the kernel.
    if (plan == conv_plans_.end() || !plan->second.task || plan->second.depthwise ||
        plan->second.int8 || plan->second.in_block != bn) {
      continue;
    }
    halo = std::max(halo, plan->second.shape.pad);
  }
  return halo;
}

// The layout a producer writes `value` in: NCHW[bn]c (returns bn) when its readers take it,
// else plain (0). Blocked convolutions read blocked data and every plain compute reads it
// through a view; reshapes and matrix products need the plain layout. The block is the one
// the first blocked convolution among the readers reads, else `natural` (the block the
// producer computes in, 0 for none).
bool Planner::MayWriteBlocked(int value) const {
  const Value& v = g_.values[value];
  if (!strategy_.blocked || is_output_[value] || v.shape.size() != 4 ||
      v.dtype != graph::DType::kFloat32) {
    return false;
  }
  for (const Node& node : g_.nodes) {
    if (std::find(node.inputs.begin(), node.inputs.end(), value) == node.inputs.end()) continue;
    if (ops::IsReshape(node.op) || node.op == "Gemm" || node.op == "MatMul") return false;
  }
  return true;
}

int64_t Planner::OutputBlock(int value, int64_t natural) {
  if (!MayWriteBlocked(value)) return 0;
  const Value& v = g_.values[value];
  int64_t wanted = 0;
  for (const Node& node : g_.nodes) {
    for (size_t k = 0; k < node.inputs.size(); ++k) {
      if (node.inputs[k] != value) continue;
      if (node.op == "Conv" && k == 0) {
        const int64_t block = PlanConv(node, natural).in_block;
        if (wanted == 0) wanted = block;
      }
    }
  }
  const int64_t bn = wanted ? wanted : natural;
  return bn > 0 && v.shape[1] % bn == 0 ? bn : 0;
}

// ---- groups ----

// The epilogue of a template group whose anchor's output is `read` blocked in `block` (else
// plain): with neither bias nor chain the template's output is the value when its readers
// take that layout; else an epilogue kernel reads its inputs and writes the value.
void Planner::PlanEpilogue(GroupPlan& gp, const std::vector<const Node*>& group, int bias,
                           bool read, int64_t block) {
  const int anchor_value = group[0]->outputs[0];
  if (bias < 0 && group.size() == 1) {
    if (!read && OutputBlock(anchor_value, 0) == 0) {
      Write(anchor_value, 0);
      return;
    }
    if (read && OutputBlock(anchor_value, block) == block) {
      ValuePlan& vp = plan_.values[anchor_value];
      vp.block = block;
      vp.halos[block] = gp.raw_halo;
      return;
    }
  }
  ReadExternals(group, bias, /*anchor=*/false);
  const int out = group.back()->outputs[0];
  Write(out, OutputBlock(out, block));
}

bool Planner::PlanConvBlocked(GroupPlan& gp, const std::vector<const Node*>& group) {
  const Node& conv = *group[0];
  const ConvPlan& cp = PlanConv(conv);
  if (!cp.task) return false;
  gp.task = cp.task;
  gp.config = cp.config;
  gp.source = cp.source;
  gp.chosen = cp.chosen;
  gp.conv = cp.shape;
  gp.in_block = cp.in_block;
  gp.out_block = cp.out_block;
  if (cp.int8) {
    PlanConvInt8(gp, group, cp);
    return true;
  }
  gp.path = cp.winograd    ? KernelPath::kWinogradCPU
            : cp.depthwise ? KernelPath::kDepthwiseCPU
                           : KernelPath::kConvCPU;
  NoteConfig(conv, gp);
  const int x = conv.inputs[0];
  Blocked(x, gp.in_block);
  gp.input_halo =
      !cp.depthwise && gp.conv.pad > 0 && plan_.values[x].halos.at(gp.in_block) >= gp.conv.pad;
  const int bias = conv.inputs.size() > 2 ? conv.inputs[2] : -1;
  const int value = group.back()->outputs[0];
  if ((bias >= 0 || group.size() > 1) && OutputBlock(value, gp.out_block) == gp.out_block) {
    gp.fused = true;
    ReadExternals(group, bias, /*anchor=*/false);
    Write(value, gp.out_block);
    return true;
  }
  if (bias < 0 && group.size() == 1) gp.raw_halo = HaloFor(conv.outputs[0], gp.out_block);
  PlanEpilogue(gp, group, bias, /*read=*/true, gp.out_block);
  return true;
}

bool Planner::PlanConvNCHW(GroupPlan& gp, const std::vector<const Node*>& group) {
  const Node& conv = *group[0];
  const int x = conv.inputs[0], w = conv.inputs[1];
  const auto& xs = g_.values[x].shape;
  const auto& ws = g_.values[w].shape;
  const ops::Conv2dAttrs attrs = ops::ParseConv2dAttrs(conv);
  if (!attrs.Uniform() || !IsParam(w) || IsParam(x) || xs.size() != 4 || ws.size() != 4) {
    return false;
  }
  const topi::Conv2dShape sh{
      xs[0], xs[1], xs[2], xs[3], ws[0], ws[2], ws[3], attrs.strides[0], attrs.pads[0]};
  const bool depthwise = attrs.group == xs[1] && ws[0] == xs[1] && ws[1] == 1;
  if (!depthwise && attrs.group != 1) return false;
  gp.task =
      depthwise
          ? MakeTask(strategy_.depthwise, {sh.n, sh.c, sh.h, sh.w, sh.r, sh.s, sh.stride, sh.pad})
          : MakeTask(strategy_.conv, {sh.n, sh.c, sh.h, sh.w, sh.k, sh.r, sh.s, sh.stride, sh.pad});
  if (!gp.task) return false;
  gp.path = KernelPath::kConvCUDA;
  gp.conv = sh;
  Plain(x);
  Plain(w);
  Configure(*group[0], gp);
  PlanEpilogue(gp, group, conv.inputs.size() > 2 ? conv.inputs[2] : -1, false, 0);
  return true;
}

bool Planner::PlanDense(GroupPlan& gp, const std::vector<const Node*>& group) {
  const Node& node = *group[0];
  const int a = node.inputs[0], bw = node.inputs[1];
  const auto& as = g_.values[a].shape;
  const auto& bs = g_.values[bw].shape;
  const bool gemm = node.op == "Gemm";
  if (!IsParam(bw) || IsParam(a) || bs.size() != 2 || as.size() < 2) return false;
  if (gemm &&
      (node.Int("transA", 0) || node.Float("alpha", 1) != 1 || node.Float("beta", 1) != 1)) {
    return false;
  }
  const bool trans_b = gemm && node.Int("transB", 0);
  const int64_t k = as.back(), n = trans_b ? bs[0] : bs[1];
  const int64_t m = graph::NumElements(as) / k;
  if (PlanDenseInt8(gp, group, m, n, k, trans_b)) return true;
  gp.task = MakeTask(strategy_.dense, {m, n, k});
  if (!gp.task) return false;
  gp.path = strategy_.blocked ? KernelPath::kDenseCPU : KernelPath::kDenseCUDA;
  Configure(node, gp);
  Plain(a);
  const int bias = gemm && node.inputs.size() > 2 ? node.inputs[2] : -1;
  if (strategy_.fused_dense_epilogue && (bias >= 0 || group.size() > 1)) {
    gp.fused = true;
    ReadExternals(group, bias, /*anchor=*/false);
    Write(group.back()->outputs[0], 0);
    return true;
  }
  PlanEpilogue(gp, group, bias, false, 0);
  return true;
}

bool Planner::PlanBatchMatmul(GroupPlan& gp, const std::vector<const Node*>& group) {
  const Node& node = *group[0];
  const int a = node.inputs[0], bv = node.inputs[1];
  const auto& as = g_.values[a].shape;
  const auto& bs = g_.values[bv].shape;
  if (node.op != "MatMul" || IsParam(a) || IsParam(bv) || as.size() < 3 || as.size() != bs.size() ||
      !std::equal(as.begin(), as.end() - 2, bs.begin())) {
    return false;
  }
  const int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
  const int64_t batch = graph::NumElements(as) / (m * k);
  gp.task = MakeTask(strategy_.batch_matmul, {batch, m, n, k});
  if (!gp.task) return false;
  gp.path = KernelPath::kBatchMatmulCPU;
  Configure(node, gp);
  Plain(bv);
  Plain(a);
  PlanEpilogue(gp, group, -1, false, 0);
  return true;
}

// A pooling whose input was written blocked, and whose output can stay so, runs in that layout
// (vectors along the channel block; through a plain view its windows read scattered values).
bool Planner::PlanPoolBlocked(GroupPlan& gp, const std::vector<const Node*>& group) {
  const Node& node = *group[0];
  const int x = node.inputs[0], out = group.back()->outputs[0];
  const ValuePlan& xp = plan_.values[x];
  if (xp.plain || xp.halos.empty()) return false;
  const int64_t bn = xp.halos.begin()->first;
  if (node.outputs.size() != 1 || OutputBlock(out, bn) != bn) return false;
  gp.path = KernelPath::kPoolBlocked;
  gp.in_block = gp.out_block = bn;
  // The elementwise chain (a QDQ model's quantization of the pooled value) runs on the pooled
  // vectors in the same kernel.
  ReadExternals(group, -1, /*anchor=*/false);
  Write(out, bn);
  return true;
}

// A concatenation along the channels of values all written in one block that divides each
// one's channels runs in that layout: every output block is one input's block, so each vector
// is one contiguous copy. Through plain views the choice between inputs ran per element, in
// scalar code (DenseNet-121's concatenations: 19 of its 53 ms).
// The group's elementwise chain (DenseNet's batch norm and ReLU after each concatenation) runs
// on the copied vectors in the same kernel.
bool Planner::PlanConcatBlocked(GroupPlan& gp, const std::vector<const Node*>& group) {
  const Node& node = *group[0];
  const int out = group.back()->outputs[0];
  const Value& v = g_.values[node.outputs[0]];
  if (node.outputs.size() != 1 || v.shape.size() != 4 || v.dtype != graph::DType::kFloat32 ||
      graph::NormalizeAxis(node.Int("axis", 0), 4, node.name) != 1) {
    return false;
  }
  // The block the inputs are written in; a plain one (a graph input) is packed to it.
  int64_t bn = 0;
  for (int x : node.inputs) {
    const int64_t block = plan_.values[x].block;
    if (block > 1 && bn > 1 && block != bn) return false;
    if (block > 1) bn = block;
  }
  if (bn <= 1) return false;
  for (int x : node.inputs) {
    const int64_t block = plan_.values[x].block;
    if ((block != bn && (block != 0 || IsParam(x))) || g_.values[x].shape.size() != 4 ||
        g_.values[x].shape[1] % bn != 0) {
      return false;
    }
  }
  if (OutputBlock(out, bn) != bn) return false;
  gp.path = KernelPath::kConcatBlocked;
  gp.in_block = gp.out_block = bn;
  for (int x : node.inputs) Blocked(x, bn);
  ReadExternals(group, -1, /*anchor=*/false);
  Write(out, bn);
  return true;
}

// A channel shuffle after a concatenation (ShuffleNet's units) runs in the block its inputs are
// written in, when that block divides every input's channels and slice: each output vector
// interleaves runs of contiguous lanes of the inputs' blocks (or, for a block that splits the
// shuffle's groups, single lanes chosen once per row).
// Through plain views every element chose its input and divided its channel, in scalar code
// (0.37-0.43 ms per shuffle of ShuffleNetV2's 28x28 stage).
bool Planner::PlanShuffleBlocked(GroupPlan& gp, const std::vector<const Node*>& group) {
  std::optional<ChannelShuffle> shuffle = MatchChannelShuffle(g_, group);
  if (!shuffle) return false;
  int64_t bn = 0;
  for (const ShuffleSource& source : shuffle->sources) {
    const int64_t block = plan_.values[source.value].block;
    if (block > 1 && bn > 1 && block != bn) return false;
    if (block > 1) bn = block;
  }
  if (bn <= 1 || shuffle->channels % bn != 0) return false;
  for (const ShuffleSource& source : shuffle->sources) {
    const int64_t block = plan_.values[source.value].block;
    if ((block != bn && (block != 0 || IsParam(source.value))) ||
        g_.values[source.value].shape[1] % bn != 0 || source.first_channel % bn != 0 ||
        source.channels % bn != 0) {
      return false;
    }
  }
  const int out = group.back()->outputs[0];
  if (OutputBlock(out, bn) != bn) return false;
  gp.path = KernelPath::kShuffleBlocked;
  gp.in_block = gp.out_block = bn;
  for (const ShuffleSource& source : shuffle->sources) Blocked(source.value, bn);
  Write(out, bn);
  return true;
}

void Planner::PlanPlain(GroupPlan& gp, const std::vector<const Node*>& group) {
  const Node& anchor = *group[0];
  if (PlanShuffleBlocked(gp, group)) return;
  if ((anchor.op == "MaxPool" || anchor.op == "AveragePool") && PlanPoolBlocked(gp, group)) {
    return;
  }
  if (anchor.op == "Concat" && PlanConcatBlocked(gp, group)) return;
  if (group.size() == 1 && ops::IsReshape(anchor.op) && !IsParam(anchor.inputs[0])) {
    gp.path = KernelPath::kReshapeAlias;
    Plain(anchor.inputs[0]);
    Write(anchor.outputs[0], 0);
    return;
  }
  gp.path = KernelPath::kPlain;
  const size_t outputs = group.size() == 1 ? anchor.outputs.size() : 1;
  for (size_t k = 0; k < outputs; ++k) {
    gp.natural = ReadExternals(group, -1, /*anchor=*/true);
    const int out = group.size() == 1 ? anchor.outputs[k] : group.back()->outputs[0];
    Write(out, OutputBlock(out, gp.natural));
  }
}

}  // namespace driver

namespace {

// Bytes of the constants the plan's kernels read: the weights a run streams through (an int8
// template's weights one byte each, as it reads them).
int64_t WeightBytes(const ModelPlan& plan) {
  const graph::Graph& g = plan.graph;
  std::set<int> int8_weights;
  for (const GroupPlan& group : plan.groups) {
    if (group.path == KernelPath::kConvInt8CPU || group.path == KernelPath::kDenseInt8CPU) {
      int8_weights.insert(g.nodes[group.nodes[0]].inputs[1]);
    }
  }
  std::set<int> read;
  for (const graph::Node& node : g.nodes) {
    for (int id : node.inputs) {
      if (id >= 0 && g.values[id].is_constant()) read.insert(id);
    }
  }
  int64_t bytes = 0;
  for (int id : read) {
    const graph::TensorData& data = *g.values[id].data;
    bytes += int8_weights.count(id) ? data.NumElements() : static_cast<int64_t>(data.bytes.size());
  }
  return bytes;
}

}  // namespace

ModelPlan PlanModel(graph::Graph g, const ModelBuildOptions& options) {
  graph::OptimizeGraph(g, options.after_pass);
  ModelPlan plan;
  plan.graph = std::move(g);
  plan.target = options.target;
  const Target target(options.target);
  plan.hardware = HardwareOf(target);
  driver::Planner planner(plan, options);
  planner.Run();
  // Weights that outgrow the caches come from memory on every run; only CPU caches are
  // evicted when timing (a GPU's kernels are timed as they are).
  const bool cold =
      FamilyOf(target) != TargetFamily::kCUDA && WeightBytes(plan) > plan.hardware.cache_bytes;
  for (ModelTask& task : plan.tasks) task.cold_weights = cold;
  return plan;
}

std::vector<ModelTask> ExtractTasks(graph::Graph g, const ModelBuildOptions& options) {
  return PlanModel(std::move(g), options).tasks;
}

}  // namespace tessera
