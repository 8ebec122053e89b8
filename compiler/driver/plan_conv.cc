// The planner's template configs: which template and config each convolution, dense layer and
// batched product runs, and the model's task list.
#include <algorithm>
#include <iostream>
#include <sstream>

#include "compiler/driver/planner.h"
#include "compiler/ops/conv.h"
#include "compiler/support/error.h"
#include "compiler/topi/conv2d_winograd_x86.h"
#include "compiler/topi/depthwise_conv2d_nchwc_x86.h"
#include "records/tuning_log.h"

namespace tessera {
namespace driver {

const Strategy& StrategyFor(const Target& target) {
  static const Strategy kCPU{"conv2d_NCHWc.x86",
                             "depthwise_conv2d_NCHWc.x86",
                             "group_conv2d_NCHWc.x86",
                             "dense.x86",
                             "batch_matmul.x86",
                             "conv2d_winograd_NCHWc.x86",
                             /*blocked=*/true,
                             /*fused_dense_epilogue=*/true,
                             "conv2d_NCHWc_int8.x86",
                             "dense_int8.x86"};
  // 64-bit Arm: NEON multiply-adds take a register lane, not a broadcast from memory, so the
  // direct convolutions load each pixel's channels as a vector and the products a row's four
  // values of A (the .arm templates' lane loads); every template's blocks are sized for NEON's
  // registers and the core's L2.
  static const Strategy kArm{"conv2d_NCHWc.arm",
                             "depthwise_conv2d_NCHWc.arm",
                             "group_conv2d_NCHWc.arm",
                             "dense.arm",
                             "batch_matmul.arm",
                             "conv2d_winograd_NCHWc.arm",
                             /*blocked=*/true,
                             /*fused_dense_epilogue=*/true,
                             "conv2d_NCHWc_int8.arm",
                             "dense_int8.arm"};
  static const Strategy kCUDA{"conv2d_nchw.cuda",
                              "depthwise_conv2d.cuda",
                              nullptr,
                              "dense.cuda",
                              nullptr,
                              nullptr,
                              /*blocked=*/false,
                              /*fused_dense_epilogue=*/false};
  switch (FamilyOf(target)) {
    case TargetFamily::kCUDA:
      return kCUDA;
    case TargetFamily::kAArch64:
      return kArm;
    case TargetFamily::kX86:
      break;
  }
  return kCPU;
}

ChosenConfig ChooseTemplateConfig(const task::Task& task, const ModelBuildOptions& options,
                                  const ConfigPreference& preference, std::ostream* warnings) {
  std::ostream& out = warnings ? *warnings : options.warnings ? *options.warnings : std::cerr;
  return options.configs ? options.configs->Choose(task, out, preference)
                         : FallbackConfig(task, out);
}

namespace {

// Where a chosen config came from, as `KernelConfig::source` says.
std::string SourceOf(const ChosenConfig& chosen) {
  if (chosen.record) return "record";
  if (!chosen.predicted_from.empty()) return "cost model";
  return chosen.nearest_workload.empty() ? "fallback" : "nearest record";
}

}  // namespace

std::shared_ptr<const task::Task> Planner::MakeTask(const char* templ,
                                                    const std::vector<int64_t>& ints,
                                                    const std::string& dtype) {
  const std::string key = task::MakeWorkloadKey(templ, task::TaskArgs{ints, dtype});
  try {
    return std::make_shared<const task::Task>(key, options_.target);
  } catch (const UserError&) {
    return nullptr;  // a shape the template does not take: plain compute
  }
}

// The config `node`'s kernel runs through `gp.task`, noted for `ModelBuild::configs`.
void Planner::Configure(const Node& node, GroupPlan& gp) {
  const ChosenConfig chosen = ChooseTemplateConfig(*gp.task, options_, {});
  gp.source = SourceOf(chosen);
  gp.config = Use(*gp.task, chosen);
  NoteConfig(node, gp);
}

void Planner::NoteConfig(const Node& node, const GroupPlan& gp) {
  const std::string config = gp.config->ToString();
  plan_.configs.push_back({node.name, gp.task->workload_key(), config, gp.source,
                           gp.chosen.empty() ? config : gp.chosen});
}

// `chosen` as `task`'s config, counted among the model's tasks.
space::ConfigEntity Planner::Use(const task::Task& task, const ChosenConfig& chosen) {
  CountTask(task, chosen);
  return chosen.config;
}

// One more kernel of `task` (configured by `chosen`) among the model's tasks; `alternative_to`
// as `ModelTask::alternative_to`.
void Planner::CountTask(const task::Task& task, const ChosenConfig& chosen,
                        const std::string& alternative_to) {
  auto it = std::find_if(plan_.tasks.begin(), plan_.tasks.end(),
                         [&](const ModelTask& t) { return t.workload_key == task.workload_key(); });
  if (it != plan_.tasks.end()) {
    ++it->weight;
    return;
  }
  plan_.tasks.push_back({task.workload_key(), 1, task.flops(), chosen.record.has_value(),
                         chosen.other_threads, alternative_to, chosen.unused_records,
                         chosen.nearest_workload, !chosen.predicted_from.empty()});
}

// `in_block`: the block the data is written in (0: unknown); among the tuning log's records
// close to the best, one reading that block is taken, else the best one is adapted to it.
const Planner::ConvPlan& Planner::PlanConv(const Node& conv, int64_t in_block) {
  auto found = conv_plans_.find(&conv);
  if (found != conv_plans_.end()) return found->second;
  ConvPlan& plan = conv_plans_[&conv];
  const int x = conv.inputs[0], w = conv.inputs[1];
  const auto& xs = g_.values[x].shape;
  const auto& ws = g_.values[w].shape;
  const ops::Conv2dAttrs attrs = ops::ParseConv2dAttrs(conv);
  if (!attrs.Uniform() || !IsParam(w) || IsParam(x)) return plan;
  plan.shape = {xs[0],         xs[1],      xs[2], xs[3], ws[0], ws[2], ws[3], attrs.strides[0],
                attrs.pads[0], attrs.group};
  const topi::Conv2dShape& sh = plan.shape;
  if (attrs.group == xs[1] && ws[0] == xs[1] && ws[1] == 1) {
    plan.depthwise = true;
    plan.task =
        MakeTask(strategy_.depthwise, {sh.n, sh.c, sh.h, sh.w, sh.r, sh.s, sh.stride, sh.pad});
  } else if (attrs.group == 1) {
    ConsiderInt8(plan, conv);
    if (!plan.int8) {
      plan.task =
          MakeTask(strategy_.conv, {sh.n, sh.c, sh.h, sh.w, sh.k, sh.r, sh.s, sh.stride, sh.pad});
    }
  } else if (strategy_.group_conv) {
    plan.task = MakeTask(strategy_.group_conv,
                         {sh.n, sh.c, sh.h, sh.w, sh.k, sh.r, sh.s, sh.stride, sh.pad, sh.groups});
  }
  if (!plan.task) return plan;
  ChooseConvConfig(plan, conv, in_block);
  // Read the producer's block where the config does not: a convolution's input block only
  // sets the length of its innermost reduction loop, while another block costs a layout pass
  // and an unfused epilogue in the producer (tuned ResNet-18: 16 more kernel calls, 20% more
  // time). A depthwise convolution's block is also its vector: the adapted config is the best
  // record's schedule with another vector length, not measured, and still cheaper than the
  // layout pass and unfused epilogue it saves (tuned MobileNetV2: 66 -> 56 kernel calls).
  const space::ConfigSpace& space = plan.task->config_space();
  plan.chosen = plan.config->ToString();
  const int64_t per_element = plan.ChannelsPerInputElement();
  // An int8 convolution over channels padded to whole words quantizes its input from the plain
  // layout (blocks of one channel), whatever its words' block.
  const bool padded_words = plan.int8 && plan.shape.c % 4 != 0;
  if (in_block > 0 && in_block % per_element == 0 && !padded_words) {
    const int64_t chosen_index = plan.config->index();
    plan.config =
        plan.depthwise
            ? topi::DepthwiseConv2dNCHWcWithBlock(space, *plan.config, in_block)
            : topi::Conv2dNCHWcWithInputBlock(space, *plan.config, in_block / per_element);
    if (plan.config->index() != chosen_index) {
      plan.source += ", input blocks of " + std::to_string(in_block);
    }
  }
  if (plan.depthwise) {
    plan.in_block = plan.out_block = topi::DepthwiseConv2dNCHWcBlock(*plan.config);
  } else {
    const topi::Conv2dBlocks b = topi::Conv2dNCHWcBlocks(*plan.config);
    plan.in_block = padded_words ? 1 : b.ic_bn * per_element;
    plan.out_block = b.oc_bn;
  }
  return plan;
}

// The config of a convolution's template (before it is adapted to the producer's block), and
// the Winograd template in its place where the log says it is faster.
void Planner::ChooseConvConfig(ConvPlan& plan, const Node& conv, int64_t in_block) {
  const topi::Conv2dShape& sh = plan.shape;
  ConfigPreference preference;
  const bool depthwise = plan.depthwise;
  const int64_t per_element = plan.ChannelsPerInputElement();
  if (in_block > 0) {
    preference.wanted = [depthwise, in_block, per_element](const space::ConfigEntity& c) {
      return (depthwise ? topi::DepthwiseConv2dNCHWcBlock(c)
                        : topi::Conv2dNCHWcBlocks(c).ic_bn * per_element) == in_block;
    };
  }
  // The alternative to a record of the producer's block is the best record adapted to it
  // (PlanConv), never a layout pass; a record of the block is worth up to one pass reading and
  // writing the data at the target's memory bandwidth (`TargetHardware`; x86: 10 GB/s, a
  // pessimistic single core) where adapting is a risk: a depthwise convolution's block is also
  // its vector length, and a blocked convolution's data larger than a core's L2 (x86: 1 MB) streams
  // from L3 in another pattern (ResNet-50's 256-channel 56×56 1×1 convolutions at two threads, the
  // best record adapted from 16- to 64-channel blocks: 0.83-0.94 ms against 0.67-0.79 for a record
  // of 64). Data that stays in L2 only sees a longer reduction loop, and the tolerance alone
  // decides: with the allowance, ResNet-50's layer4 (2048 channels at 7×7, 400 KB) read its
  // 64-channel blocks through a record 14% slower than the best when tuned and 40% slower a day
  // later (1.41 ms against 1.03 for the best adapted, `config_probe --cold`).
  const TargetHardware& hw = plan_.hardware;
  const int64_t data_bytes = (plan.int8 ? 1 : 4) * sh.n * sh.c * sh.h * sh.w;
  if (plan.depthwise || data_bytes > hw.l2_bytes) {
    preference.slack_s = 2.0 * data_bytes / hw.memory_bytes_per_s;
  }
  // Added to another convolution's output (a residual branch): the same output block lets the
  // add run in the epilogue of whichever of the two comes last, reading whole vectors; another
  // block makes it read the partner through a plain-indexed view (ResNet-50's first layer2
  // block, a 64-channel downsample beside a 32-channel conv3: 1.22 ms against 0.93 for the
  // same conv3 in the next blocks).
  const int64_t partner_block = depthwise ? 0 : ResidualPartnerBlock(conv);
  if (partner_block > 0) {
    // The partner's block first, with the producer's input block if a record has both (the
    // input block is adapted anyway, at the cost of a slightly different inner loop).
    ConfigPreference same_output = preference;
    same_output.wanted = [partner_block](const space::ConfigEntity& c) {
      return topi::Conv2dNCHWcBlocks(c).oc_bn == partner_block;
    };
    // Plus a pass over the output: what the mismatch costs.
    same_output.slack_s += 2.0 * 4 * sh.n * sh.k * sh.oh() * sh.ow() / hw.memory_bytes_per_s;
    ConfigPreference both = same_output;
    both.wanted = [same = same_output.wanted, in = preference.wanted](
                      const space::ConfigEntity& c) { return same(c) && (!in || in(c)); };
    for (const ConfigPreference& candidate : {both, same_output}) {
      ChosenConfig chosen = ChooseTemplateConfig(*plan.task, options_, candidate);
      if (candidate.wanted(chosen.config)) {
        plan.source = SourceOf(chosen);
        plan.config = Use(*plan.task, chosen);
        break;
      }
    }
  }
  std::optional<ChosenConfig> direct;
  if (!plan.config) {
    direct = ChooseTemplateConfig(*plan.task, options_, preference);
    plan.source = SourceOf(*direct);
    plan.config = Use(*plan.task, *direct);
  }
  if (!depthwise && !plan.int8 && strategy_.winograd && topi::WinogradApplies(sh)) {
    ConsiderWinograd(plan, direct, preference, partner_block);
  }
}

// A 3x3 stride-1 convolution through the Winograd template instead of `direct` (the direct
// template's choice; none when a residual partner's block decided) when the log has a faster
// record of it, measured at the same thread count, that writes the partner's block if there is
// one; the task is a model task either way, so that tuning measures it.
void Planner::ConsiderWinograd(ConvPlan& plan, const std::optional<ChosenConfig>& direct,
                               ConfigPreference preference, int64_t partner_block) {
  const topi::Conv2dShape& sh = plan.shape;
  const std::shared_ptr<const task::Task> task =
      MakeTask(strategy_.winograd, {sh.n, sh.c, sh.h, sh.w, sh.k, sh.pad});
  if (!task) return;
  auto same_output = [partner_block](const space::ConfigEntity& c) {
    return partner_block == 0 || topi::Conv2dNCHWcBlocks(c).oc_bn == partner_block;
  };
  if (partner_block > 0) {
    preference.wanted = [same_output, in = preference.wanted](const space::ConfigEntity& c) {
      return same_output(c) && (!in || in(c));
    };
  }
  std::ostringstream no_record;  // the alternative's absence is no news
  const ChosenConfig chosen = ChooseTemplateConfig(*task, options_, preference, &no_record);
  CountTask(*task, chosen, plan.task->workload_key());
  if (!chosen.record || !same_output(chosen.config)) return;
  // Where the partner's block decided, the direct template's best record stands for it.
  const ChosenConfig compared = direct ? *direct : ChooseTemplateConfig(*plan.task, options_, {});
  // The transformed weights' extra reads count against the Winograd record (the rule the
  // tuner's latency estimate applies too).
  if (compared.record &&
      (compared.other_threads != chosen.other_threads ||
       !topi::WinogradBeatsDirect(
           sh, records::MeanCost(*compared.record), records::MeanCost(*chosen.record),
           topi::WinogradTile(chosen.config), plan_.hardware.memory_bytes_per_s))) {
    return;
  }
  plan.task = task;
  plan.winograd = true;
  plan.source = SourceOf(chosen);
  plan.config = chosen.config;
}

// The output block of the convolution whose output `conv`'s output is added to (an "Add" of
// the two, as in a residual block), when that one is planned; 0 otherwise.
int64_t Planner::ResidualPartnerBlock(const Node& conv) {
  const int out = conv.outputs[0];
  for (const Node& add : g_.nodes) {
    if (add.op != "Add" || add.inputs.size() != 2) continue;
    int other = -1;
    if (add.inputs[0] == out) other = add.inputs[1];
    if (add.inputs[1] == out) other = add.inputs[0];
    if (other < 0 || other == out || producer_[other] < 0) continue;
    const Node& partner = g_.nodes[producer_[other]];
    if (partner.op != "Conv") continue;
    auto plan = conv_plans_.find(&partner);
    if (plan != conv_plans_.end() && plan->second.out_block > 0) return plan->second.out_block;
  }
  return 0;
}

}  // namespace driver
}  // namespace tessera
