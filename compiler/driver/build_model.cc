#include "compiler/driver/build_model.h"

#include <algorithm>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>

#include "common/file.h"
#include "compiler/driver/config_source.h"
#include "compiler/driver/memory_plan.h"
#include "compiler/driver/model_kernels.h"
#include "compiler/driver/op_compute.h"
#include "compiler/graph/pipeline.h"
#include "compiler/lower/lower.h"
#include "compiler/ops/conv.h"
#include "compiler/ops/op_def.h"
#include "compiler/space/config_proto.h"
#include "compiler/support/error.h"
#include "compiler/task/blocked_layout.h"
#include "compiler/task/task.h"
#include "compiler/topi/batch_matmul_x86.h"
#include "compiler/topi/conv2d_nchwc_x86.h"
#include "compiler/topi/conv2d_winograd_x86.h"
#include "compiler/topi/dense_x86.h"
#include "compiler/topi/depthwise_conv2d_nchwc_x86.h"
#include "compiler/topi/nchwc_layout.h"
#include "records/tuning_log.h"
#include "runtime/data_type.h"
#include "runtime/graph_executor.h"
#include "runtime/params.h"

namespace tessera {
namespace {

using driver::E;
using graph::Graph;
using graph::Node;
using graph::Value;
using ir::Expr;
using ir::Var;

Expr I(int64_t v) { return ir::IntImm(ir::DataType::Int(32), v); }

std::vector<Expr> ShapeExprs(const std::vector<int64_t>& shape) {
  std::vector<Expr> out;
  for (int64_t d : shape) out.push_back(I(d));
  return out;
}

DLDataType DLType(graph::DType t) {
  switch (t) {
    case graph::DType::kFloat32:
      return runtime::MakeDataType(kDLFloat, 32);
    case graph::DType::kInt64:
      return runtime::MakeDataType(kDLInt, 64);
    case graph::DType::kInt32:
      return runtime::MakeDataType(kDLInt, 32);
    case graph::DType::kBool:
      return runtime::MakeDataType(kDLUInt, 8);
  }
  return runtime::MakeDataType(kDLFloat, 32);
}

std::vector<float> Floats(const graph::TensorData& t) {
  return std::vector<float>(t.f32(), t.f32() + t.NumElements());
}

runtime::NDArray HostArray(const std::vector<int64_t>& shape, DLDataType dtype, const void* data,
                           size_t bytes) {
  runtime::NDArray a = runtime::NDArray::Empty(shape, dtype, runtime::CPUDevice());
  a.CopyFromBytes(data, bytes);
  return a;
}

std::string Symbol(size_t index, const std::string& op) {
  std::string s = "tsr_k" + std::to_string(index) + "_";
  for (char c : op) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return s;
}

// The configuration of a template workload: the config source's best record for the exact
// target, else the fallback; notices go to `warnings` (null: the build's). The only place a model
// build reads records.
ChosenConfig ChooseTemplateConfig(const task::Task& task, const ModelBuildOptions& options,
                                  const ConfigPreference& preference,
                                  std::ostream* warnings = nullptr) {
  std::ostream& out = warnings ? *warnings : options.warnings ? *options.warnings : std::cerr;
  return options.configs ? options.configs->Choose(task, out, preference)
                         : FallbackConfig(task, out);
}

class ModelBuilder {
 public:
  ModelBuilder(Graph& g, const ModelBuildOptions& options, bool dry_run)
      : g_(g),
        options_(options),
        dry_run_(dry_run),
        value_tensor_(g.values.size(), -1),
        kernels_(options.target, options.emulate_gpu_serially) {}

  void Run() {
    std::vector<int> last_of_group;
    for (size_t n = 0; n < g_.nodes.size(); ++n) {
      int group = g_.nodes[n].group;
      if (group >= static_cast<int>(last_of_group.size())) last_of_group.resize(group + 1, -1);
      last_of_group[group] = static_cast<int>(n);
    }
    for (int in : g_.inputs) {
      value_tensor_[in] = NewTensor(g_.values[in].name, DLType(g_.values[in].dtype),
                                    g_.values[in].shape, kNewBuffer);
      exec_.inputs.push_back(value_tensor_[in]);
    }
    for (size_t n = 0; n < g_.nodes.size(); ++n) {
      if (last_of_group[g_.nodes[n].group] != static_cast<int>(n)) continue;
      std::vector<const Node*> group;
      for (size_t m = 0; m <= n; ++m) {
        if (g_.nodes[m].group == g_.nodes[n].group) group.push_back(&g_.nodes[m]);
      }
      EmitGroup(group);
    }
    for (int out : g_.outputs) exec_.outputs.push_back(TensorOf(out));
  }

  ModelBuild Finish() {
    ModelBuild result;
    result.tasks = tasks_;
    result.configs = configs_;
    if (dry_run_) return result;
    driver::MemoryPlan plan = driver::PlanMemory(exec_, tensor_buffer_, buffer_bytes_);
    result.planned_bytes = plan.planned_bytes;
    result.unplanned_bytes = plan.unplanned_bytes;
    kernels_.Build(&result);
    result.graph = std::move(exec_);
    result.params = std::move(params_);
    return result;
  }

 private:
  static constexpr int kNewBuffer = -2;
  static constexpr int kParam = -1;

  int NewTensor(const std::string& name, DLDataType dtype, std::vector<int64_t> shape, int buffer) {
    runtime::ExecTensor t;
    t.name = names_.count(name) ? name + "_" + std::to_string(exec_.tensors.size()) : name;
    names_.insert(t.name);
    t.dtype = dtype;
    t.shape = std::move(shape);
    if (buffer == kNewBuffer) {
      buffer = static_cast<int>(buffer_bytes_.size());
      buffer_bytes_.push_back(graph::NumElements(t.shape) *
                              static_cast<int64_t>(runtime::DataTypeBytes(dtype)));
    }
    tensor_buffer_.push_back(buffer);
    exec_.tensors.push_back(std::move(t));
    return static_cast<int>(exec_.tensors.size()) - 1;
  }

  int AddParam(const std::string& name, runtime::NDArray value) {
    int id = NewTensor(name, value.DataType(), value.Shape(), kParam);
    params_[exec_.tensors[id].name] = std::move(value);
    return id;
  }

  // The execution tensor of a graph value in the plain layout (constants become parameters on
  // first use; a value written blocked is unpacked by a kernel on its first plain read).
  int TensorOf(int value) {
    if (value_tensor_[value] >= 0) return value_tensor_[value];
    const Value& v = g_.values[value];
    auto blocked = value_blocked_.find(value);
    if (blocked != value_blocked_.end() && !blocked->second.empty()) {
      const auto [bn, id] = *blocked->second.begin();
      value_tensor_[value] = NewTensor(v.name, DLType(v.dtype), v.shape, kNewBuffer);
      AddKernel(v.name + "/unpack", "unpack_NCHWc",
                topi::UnpackNCHWc(v.shape[0], v.shape[1], v.shape[2], v.shape[3], bn), {id},
                {value_tensor_[value]});
      return value_tensor_[value];
    }
    TESSERA_INTERNAL_CHECK(v.is_constant())
        << "value '" << v.name << "' is used before it is computed";
    value_tensor_[value] = AddParam(
        v.name, HostArray(v.shape, DLType(v.dtype), v.data->bytes.data(), v.data->bytes.size()));
    return value_tensor_[value];
  }

  // The execution tensor of a float32 NCHW value in the NCHW[bn]c layout: as its producer wrote
  // it, else packed from the plain layout or repacked from another block by a kernel (once).
  int BlockedOf(int value, int64_t bn) {
    std::map<int64_t, int>& forms = value_blocked_[value];
    auto found = forms.find(bn);
    if (found != forms.end()) return found->second;
    const Value& v = g_.values[value];
    const auto& s = v.shape;
    if (bn == 1 && value_tensor_[value] >= 0) {
      // Blocks of one channel are the plain layout itself: a view, not a copy (a 3-channel stem
      // convolution tuned to read single channels, as ResNet-18/50's logs choose, read its input
      // through a pack kernel that copied it unchanged: 0.09 ms a run).
      forms[bn] = Alias(value_tensor_[value], {s[0], s[1], s[2], s[3], 1}, v.name + "_NCHW1c");
      return forms[bn];
    }
    int id = NewBlockedTensor(value, bn, v.name + "_NCHW" + std::to_string(bn) + "c");
    if (value_tensor_[value] < 0 && !forms.empty()) {
      const auto [from_bn, from] = *forms.begin();
      AddKernel(v.name + "/repack", "repack_NCHWc",
                topi::RepackNCHWc(s[0], s[1], s[2], s[3], from_bn, bn), {from}, {id});
    } else {
      AddKernel(v.name + "/pack", "pack_NCHWc", topi::PackNCHWc(s[0], s[1], s[2], s[3], bn),
                {TensorOf(value)}, {id});
    }
    forms[bn] = id;
    return id;
  }

  // A tensor sharing `of`'s buffer with another shape (a free reshape).
  int Alias(int of, const std::vector<int64_t>& shape, const std::string& name) {
    return NewTensor(name, exec_.tensors[of].dtype, shape, tensor_buffer_[of]);
  }

  // Rows and columns of zeros the NCHW[bn]c form of `value` keeps around it: the largest padding
  // among the (not depthwise) blocked convolutions planned to read that form, which then read it
  // in place instead of copying it into a padded buffer first (0.1 ms for each of ResNet-50's
  // layer1 3x3 convolutions). Every other reader addresses the tensor inside the halo. Depthwise
  // convolutions keep their own padding: read in place, MobileNetV2's ran slower (9.17 -> 9.39 ms
  // at one thread, 5.06 -> 5.30 at two), their small kernels paying for their producers' halos.
  int64_t HaloFor(int value, int64_t bn) const {
    if (kernels_.gpu()) return 0;
    int64_t halo = 0;
    for (const Node& node : g_.nodes) {
      if (node.op != "Conv" || node.inputs.empty() || node.inputs[0] != value) continue;
      auto plan = conv_plans_.find(&node);
      if (plan == conv_plans_.end() || !plan->second.task || plan->second.depthwise ||
          plan->second.in_block != bn) {
        continue;
      }
      halo = std::max(halo, plan->second.shape.pad);
    }
    return halo;
  }

  // A new tensor for the NCHW[bn]c form of the 4-D `value`, with the halo its readers take.
  int NewBlockedTensor(int value, int64_t bn, const std::string& name) {
    const Value& v = g_.values[value];
    const int64_t halo = HaloFor(value, bn);
    std::vector<int64_t> shape = BlockedShape(v.shape, bn);
    shape[2] += 2 * halo;
    shape[3] += 2 * halo;
    int id = NewTensor(name, DLType(v.dtype), shape, kNewBuffer);
    if (halo > 0) tensor_halo_[id] = halo;
    return id;
  }

  int64_t HaloOf(int tensor) const {
    auto it = tensor_halo_.find(tensor);
    return it == tensor_halo_.end() ? 0 : it->second;
  }

  bool IsParam(int value) const { return g_.values[value].is_constant(); }

  void AddKernel(const std::string& name, const std::string& op, const te::Schedule& schedule,
                 const std::vector<te::Tensor>& args, std::vector<int> inputs,
                 std::vector<int> outputs) {
    std::string symbol = Symbol(exec_.nodes.size(), op);
    if (!dry_run_) kernels_.Add(schedule, args, symbol, ArgHalos(inputs, outputs, args.size()));
    exec_.nodes.push_back({name, symbol, std::move(inputs), std::move(outputs)});
  }

  // The halos of a kernel's arguments (its inputs, then its outputs), for lowering.
  std::vector<std::vector<int64_t>> ArgHalos(const std::vector<int>& inputs,
                                             const std::vector<int>& outputs, size_t args) const {
    TESSERA_INTERNAL_CHECK(inputs.size() + outputs.size() == args)
        << args << " kernel arguments for " << inputs.size() << " inputs and " << outputs.size()
        << " outputs";
    std::vector<std::vector<int64_t>> halos;
    for (const std::vector<int>* ids : {&inputs, &outputs}) {
      for (int id : *ids) {
        const int64_t h = HaloOf(id);
        halos.push_back(h > 0 ? std::vector<int64_t>{0, 0, h, h, 0} : std::vector<int64_t>{});
      }
    }
    return halos;
  }

  // The default schedule of a kernel computing `result` for the target.
  te::Schedule Default(const te::Tensor& result, const std::string& what) const {
    return kernels_.gpu() ? driver::DefaultScheduleCUDA(result, what)
                          : driver::DefaultSchedule(result);
  }

  void AddKernel(const std::string& name, const std::string& op, const topi::ScheduledOp& k,
                 std::vector<int> inputs, std::vector<int> outputs) {
    AddKernel(name, op, k.schedule, k.args, std::move(inputs), std::move(outputs));
  }

  // Kernel arguments gathered while building a compute.
  struct Args {
    std::vector<te::Tensor> tensors;
    std::vector<int> ids;
    std::map<int, te::Tensor> by_value;
    int64_t block = 0;  // the channel block of the first input read blocked (0: none)
  };

  driver::Operand External(int value, Args* args) {
    const Value& v = g_.values[value];
    driver::Operand o;
    o.shape = v.shape;
    if (v.is_constant() && v.data->NumElements() == 1) {
      o.scalar = v.dtype == graph::DType::kFloat32
                     ? ir::FloatImm(ir::DataType::Float(32), v.data->At(0))
                     : ir::IntImm(driver::KernelType(v.dtype), static_cast<int64_t>(v.data->At(0)));
      return o;
    }
    auto it = args->by_value.find(value);
    auto blocked = value_blocked_.find(value);
    if (it == args->by_value.end() && value_tensor_[value] < 0 && blocked != value_blocked_.end() &&
        !blocked->second.empty()) {
      // Written blocked only: the kernel reads the blocked tensor through a plain-indexed view,
      // inlined into its computes.
      const auto [bn, id] = *blocked->second.begin();
      const auto& s = v.shape;
      te::Tensor t =
          te::placeholder(ShapeExprs({s[0], s[1] / bn, s[2], s[3], bn}), ir::DataType::Float(32),
                          "in" + std::to_string(args->tensors.size()));
      args->tensors.push_back(t);
      args->ids.push_back(id);
      if (args->block == 0) args->block = bn;
      te::Tensor view = te::compute(
          ShapeExprs(s),
          [&](const std::vector<Var>& i) {
            return t(i[0], ir::floordiv(i[1], I(bn)), i[2], i[3], ir::floormod(i[1], I(bn)));
          },
          t.name() + "_view");
      it = args->by_value.emplace(value, view).first;
    }
    if (it == args->by_value.end()) {
      te::Tensor t = te::placeholder(ShapeExprs(v.shape), driver::KernelType(v.dtype),
                                     "in" + std::to_string(args->tensors.size()));
      args->tensors.push_back(t);
      args->ids.push_back(TensorOf(value));
      it = args->by_value.emplace(value, t).first;
    }
    o.tensor = it->second;
    return o;
  }

  std::vector<driver::Operand> Operands(const Node& node, Args* args, int chained = -1,
                                        const te::Tensor& chained_tensor = te::Tensor()) {
    std::vector<driver::Operand> ops;
    for (int in : node.inputs) {
      if (in < 0) {
        ops.emplace_back();
      } else if (in == chained) {
        ops.push_back({chained_tensor, Expr(), g_.values[in].shape});
      } else {
        ops.push_back(External(in, args));
      }
    }
    return ops;
  }

  // Applies the elementwise chain of a group after `base` (the value of `group[first]`'s output).
  te::Tensor Chain(const std::vector<const Node*>& group, size_t first, te::Tensor base,
                   Args* args) {
    int current = group[first - 1]->outputs[0];
    for (size_t i = first; i < group.size(); ++i) {
      base = driver::ComputeNode(g_, *group[i], Operands(*group[i], args, current, base));
      current = group[i]->outputs[0];
    }
    return base;
  }

  std::string GroupName(const std::vector<const Node*>& group) const {
    std::string name = group[0]->name;
    for (size_t i = 1; i < group.size(); ++i) name += "+" + group[i]->op;
    return name;
  }

  // Finishes a template group: the epilogue kernel reads `base` (a tensor of the anchor's output
  // shape, or its NCHW[block]c form through `read`), adds `bias` (per channel of `channel_axis`,
  // or broadcast like numpy when it is -1) and runs the chain; without either, `base_tensor` is
  // the value itself when its layout suits the readers.
  void Epilogue(const std::vector<const Node*>& group, int base_tensor, int bias_value,
                int channel_axis,
                const std::function<Expr(const te::Tensor&, const std::vector<Var>&)>& read,
                const std::vector<int64_t>& base_shape, int64_t block = 0) {
    const int anchor_value = group[0]->outputs[0];
    const Value& anchor_out = g_.values[anchor_value];
    if (bias_value < 0 && group.size() == 1) {
      if (!read && OutputBlock(anchor_value, 0) == 0) {
        // The template's output is the value itself: it takes the value's name.
        names_.erase(exec_.tensors[base_tensor].name);
        exec_.tensors[base_tensor].name = anchor_out.name;
        names_.insert(anchor_out.name);
        value_tensor_[anchor_value] = base_tensor;
        return;
      }
      if (read && OutputBlock(anchor_value, block) == block) {
        value_blocked_[anchor_value][block] = base_tensor;
        return;
      }
    }
    Args args;
    te::Tensor base_in = te::placeholder(ShapeExprs(base_shape), ir::DataType::Float(32), "base");
    args.tensors.push_back(base_in);
    args.ids.push_back(base_tensor);
    te::Tensor result = GroupValue(group, base_in, bias_value, channel_axis, read, &args);
    int out = KernelOutput(group.back()->outputs[0], &result, block);
    args.tensors.push_back(result);
    AddKernel(GroupName(group), "epilogue", Default(result, GroupName(group)), args.tensors,
              args.ids, {out});
  }

  // The value of a template group in the plain index space: the anchor's result `base` (read
  // through `read` when it is blocked), plus `bias`, then the group's elementwise chain.
  te::Tensor GroupValue(const std::vector<const Node*>& group, const te::Tensor& base,
                        int bias_value, int channel_axis,
                        const std::function<Expr(const te::Tensor&, const std::vector<Var>&)>& read,
                        Args* args) {
    driver::Operand bias;
    if (bias_value >= 0) bias = External(bias_value, args);
    te::Tensor value = te::compute(
        ShapeExprs(g_.values[group[0]->outputs[0]].shape),
        [&](const std::vector<Var>& i) {
          Expr v = read ? read(base, i) : base(E(i));
          if (bias.scalar.defined()) return v + bias.scalar;
          if (bias.tensor.defined()) {
            v = v + (channel_axis >= 0 ? bias.tensor(i[channel_axis]) : driver::Read(bias, i));
          }
          return v;
        },
        group[0]->name + "_epilogue");
    return Chain(group, 1, value, args);
  }

  const task::Task* MakeTask(const std::string& templ, const std::vector<int64_t>& ints,
                             double* flops) {
    task::TaskArgs targs{ints, "float32"};
    std::string key = task::MakeWorkloadKey(templ, targs);
    try {
      auto task = std::make_unique<task::Task>(key, options_.target);
      *flops = task->flops();
      tasks_storage_.push_back(std::move(task));
      return tasks_storage_.back().get();
    } catch (const UserError&) {
      return nullptr;  // a shape the template does not take: plain compute
    }
  }

  // The config `node`'s kernel runs through `task`, noted for `ModelBuild::configs`.
  space::ConfigEntity Configure(const Node& node, const task::Task& task) {
    const ChosenConfig chosen = ChooseTemplateConfig(task, options_, {});
    NoteConfig(node, task, chosen.config, SourceOf(chosen));
    return Use(task, chosen);
  }

  // Where a chosen config came from, as `KernelConfig::source` says.
  static std::string SourceOf(const ChosenConfig& chosen) {
    return chosen.record ? "record" : "fallback";
  }

  void NoteConfig(const Node& node, const task::Task& task, const space::ConfigEntity& config,
                  const std::string& source) {
    configs_.push_back({node.name, task.workload_key(), config.ToString(), source});
  }

  // `chosen` as `task`'s config, counted among the model's tasks.
  space::ConfigEntity Use(const task::Task& task, const ChosenConfig& chosen) {
    CountTask(task, chosen);
    return chosen.config;
  }

  // One more kernel of `task` (configured by `chosen`) among the model's tasks; `alternative_to`
  // as `ModelTask::alternative_to`.
  void CountTask(const task::Task& task, const ChosenConfig& chosen,
                 const std::string& alternative_to = "") {
    auto it = std::find_if(tasks_.begin(), tasks_.end(), [&](const ModelTask& t) {
      return t.workload_key == task.workload_key();
    });
    if (it != tasks_.end()) {
      ++it->weight;
      return;
    }
    tasks_.push_back({task.workload_key(), 1, task.flops(), chosen.record.has_value(),
                      chosen.other_threads, alternative_to});
  }

  // How a convolution node runs: through which template with which config (null task: plain
  // compute). Made once per node, so that producers can write the layout it reads.
  struct ConvPlan {
    const task::Task* task = nullptr;
    bool depthwise = false;
    topi::Conv2dShape shape;
    std::optional<space::ConfigEntity> config;
    int64_t in_block = 0;   // the data's channel block
    int64_t out_block = 0;  // the output's channel block
    std::string source;     // for KernelConfig::source
    bool winograd = false;  // `task` is conv2d_winograd_NCHWc.x86
  };

  // `in_block`: the block the data is written in (0: unknown); among the tuning log's records
  // close to the best, one reading that block is taken, else the best one is adapted to it.
  const ConvPlan& PlanConv(const Node& conv, int64_t in_block = 0) {
    auto found = conv_plans_.find(&conv);
    if (found != conv_plans_.end()) return found->second;
    ConvPlan& plan = conv_plans_[&conv];
    int x = conv.inputs[0], w = conv.inputs[1];
    const auto& xs = g_.values[x].shape;
    const auto& ws = g_.values[w].shape;
    const ops::Conv2dAttrs attrs = ops::ParseConv2dAttrs(conv);
    if (!attrs.Uniform() || !IsParam(w) || IsParam(x)) return plan;
    const int64_t group_count = attrs.group;
    plan.shape = {xs[0], xs[1], xs[2], xs[3], ws[0], ws[2], ws[3], attrs.strides[0], attrs.pads[0]};
    const topi::Conv2dShape& sh = plan.shape;
    double flops = 0;
    if (group_count == xs[1] && ws[0] == xs[1] && ws[1] == 1) {
      plan.depthwise = true;
      plan.task = MakeTask("depthwise_conv2d_NCHWc.x86",
                           {sh.n, sh.c, sh.h, sh.w, sh.r, sh.s, sh.stride, sh.pad}, &flops);
    } else if (group_count == 1) {
      plan.task = MakeTask("conv2d_NCHWc.x86",
                           {sh.n, sh.c, sh.h, sh.w, sh.k, sh.r, sh.s, sh.stride, sh.pad}, &flops);
    }
    if (!plan.task) return plan;
    ConfigPreference preference;
    const bool depthwise = plan.depthwise;
    if (in_block > 0) {
      preference.wanted = [depthwise, in_block](const space::ConfigEntity& c) {
        return (depthwise ? topi::DepthwiseConv2dNCHWcBlock(c)
                          : topi::Conv2dNCHWcBlocks(c).ic_bn) == in_block;
      };
    }
    // The alternative to a record of the producer's block is the best record adapted to it
    // (below), never a layout pass; a record of the block is worth up to one pass reading and
    // writing the data at about 10 GB/s (a pessimistic single core) where adapting is a risk: a
    // depthwise convolution's block is also its vector length, and a blocked convolution's data
    // larger than a core's L2 (1 MB) streams from L3 in another pattern (ResNet-50's 256-channel
    // 56×56 1×1 convolutions at two threads, the best record adapted from 16- to 64-channel
    // blocks: 0.83-0.94 ms against 0.67-0.79 for a record of 64). Data that stays in L2 only
    // sees a longer reduction loop, and the tolerance alone decides: with the allowance,
    // ResNet-50's layer4 (2048 channels at 7×7, 400 KB) read its 64-channel blocks through a
    // record 14% slower than the best when tuned and 40% slower a day later (1.41 ms against
    // 1.03 for the best adapted, `config_probe --cold`).
    const int64_t data_bytes = 4 * sh.n * sh.c * sh.h * sh.w;
    if (plan.depthwise || data_bytes > (int64_t{1} << 20))
      preference.slack_s = 2.0 * data_bytes / 10e9;
    // Added to another convolution's output (a residual branch): the same output block lets the
    // add run in the epilogue of whichever of the two comes last, reading whole vectors; another
    // block makes it read the partner through a plain-indexed view (ResNet-50's first layer2
    // block, a 64-channel downsample beside a 32-channel conv3: 1.22 ms against 0.93 for the
    // same conv3 in the next blocks).
    const int64_t partner_block = depthwise ? 0 : ResidualPartnerBlock(conv);
    if (partner_block > 0) {
      // The partner's block first, with the producer's input block if a record has both (the
      // input block is adapted below anyway, at the cost of a slightly different inner loop).
      ConfigPreference same_output = preference;
      same_output.wanted = [partner_block](const space::ConfigEntity& c) {
        return topi::Conv2dNCHWcBlocks(c).oc_bn == partner_block;
      };
      // Plus a pass over the output: what the mismatch costs.
      same_output.slack_s += 2.0 * 4 * sh.n * sh.k * sh.oh() * sh.ow() / 10e9;
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
    if (!depthwise && !kernels_.gpu() && topi::WinogradApplies(sh)) {
      ConsiderWinograd(plan, direct, preference, partner_block);
    }
    // Read the producer's block where the config does not: a convolution's input block only
    // sets the length of its innermost reduction loop, while another block costs a layout pass
    // and an unfused epilogue in the producer (tuned ResNet-18: 16 more kernel calls, 20% more
    // time). A depthwise convolution's block is also its vector: the adapted config is the best
    // record's schedule with another vector length, not measured, and still cheaper than the
    // layout pass and unfused epilogue it saves (tuned MobileNetV2: 66 -> 56 kernel calls).
    const space::ConfigSpace& space = plan.task->config_space();
    if (in_block > 0) {
      const int64_t chosen_index = plan.config->index();
      plan.config = plan.depthwise
                        ? topi::DepthwiseConv2dNCHWcWithBlock(space, *plan.config, in_block)
                        : topi::Conv2dNCHWcWithInputBlock(space, *plan.config, in_block);
      if (plan.config->index() != chosen_index) {
        plan.source += ", input blocks of " + std::to_string(in_block);
      }
    }
    if (plan.depthwise) {
      plan.in_block = plan.out_block = topi::DepthwiseConv2dNCHWcBlock(*plan.config);
    } else {
      const topi::Conv2dBlocks b = topi::Conv2dNCHWcBlocks(*plan.config);
      plan.in_block = b.ic_bn;
      plan.out_block = b.oc_bn;
    }
    return plan;
  }

  // A 3x3 stride-1 convolution through conv2d_winograd_NCHWc.x86 instead of `direct` (the
  // direct template's choice; none when a residual partner's block decided) when the log has a
  // faster record of it, measured at the same thread count, that writes the partner's block if
  // there is one; the task is a model task either way, so that tuning measures it.
  void ConsiderWinograd(ConvPlan& plan, const std::optional<ChosenConfig>& direct,
                        ConfigPreference preference, int64_t partner_block) {
    const topi::Conv2dShape& sh = plan.shape;
    double flops = 0;
    const task::Task* task =
        MakeTask("conv2d_winograd_NCHWc.x86", {sh.n, sh.c, sh.h, sh.w, sh.k, sh.pad}, &flops);
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
    if (compared.record && (compared.other_threads != chosen.other_threads ||
                            !topi::WinogradBeatsDirect(sh, records::MeanCost(*compared.record),
                                                       records::MeanCost(*chosen.record),
                                                       topi::WinogradTile(chosen.config)))) {
      return;
    }
    plan.task = task;
    plan.winograd = true;
    plan.source = SourceOf(chosen);
    plan.config = chosen.config;
  }

  // The output block of the convolution whose output `conv`'s output is added to (an "Add" of
  // the two, as in a residual block), when that one is planned; 0 otherwise.
  int64_t ResidualPartnerBlock(const Node& conv) {
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

  // The layout a producer writes `value` in: NCHW[bn]c (returns bn) when its readers take it,
  // else plain (0). Blocked convolutions read blocked data and every plain compute reads it
  // through a view; reshapes and matrix products need the plain layout. The block is the one
  // the first blocked convolution among the readers reads, else `natural` (the block the
  // producer computes in, 0 for none).
  int64_t OutputBlock(int value, int64_t natural) {
    const Value& v = g_.values[value];
    if (kernels_.gpu() || is_output_[value] || v.shape.size() != 4 ||
        v.dtype != graph::DType::kFloat32)
      return 0;
    int64_t wanted = 0;
    for (const Node& node : g_.nodes) {
      for (size_t k = 0; k < node.inputs.size(); ++k) {
        if (node.inputs[k] != value) continue;
        if (ops::IsReshape(node.op) || node.op == "Gemm" || node.op == "MatMul") return 0;
        if (node.op == "Conv" && k == 0) {
          const int64_t block = PlanConv(node, natural).in_block;
          if (wanted == 0) wanted = block;
        }
      }
    }
    const int64_t bn = wanted ? wanted : natural;
    return bn > 0 && v.shape[1] % bn == 0 ? bn : 0;
  }

  // Registers `result` (the value of `out_value`, computed in the plain index space) as a kernel
  // output: plain, or blocked as `OutputBlock` chooses (`natural`: the block the kernel computes
  // in). Returns the output tensor.
  int KernelOutput(int out_value, te::Tensor* result, int64_t natural) {
    const Value& v = g_.values[out_value];
    const int64_t bn = OutputBlock(out_value, natural);
    if (bn == 0) {
      value_tensor_[out_value] = NewTensor(v.name, DLType(v.dtype), v.shape, kNewBuffer);
      return value_tensor_[out_value];
    }
    *result = ToBlocked(*result, bn, v.name + "_NCHWc");
    int id = NewBlockedTensor(out_value, bn, v.name + "_NCHWc");
    value_blocked_[out_value][bn] = id;
    return id;
  }

  static std::vector<int64_t> BlockedShape(const std::vector<int64_t>& s, int64_t bn) {
    return {s[0], s[1] / bn, s[2], s[3], bn};
  }

  // `plain` (NCHW) written in NCHW[bn]c.
  static te::Tensor ToBlocked(const te::Tensor& plain, int64_t bn, const std::string& name) {
    std::vector<Expr> shape = plain.shape();
    shape[1] = I(*ir::AsConstInt(shape[1]) / bn);
    shape.push_back(I(bn));
    return te::compute(
        shape,
        [&](const std::vector<Var>& i) { return plain(i[0], i[1] * I(bn) + i[4], i[2], i[3]); },
        name);
  }

  bool EmitConv(const std::vector<const Node*>& group) {
    const Node& conv = *group[0];
    const ConvPlan& plan = PlanConv(conv);
    if (!plan.task) return false;
    NoteConfig(conv, *plan.task, *plan.config, plan.source);
    int x = conv.inputs[0], w = conv.inputs[1];
    int bias = conv.inputs.size() > 2 ? conv.inputs[2] : -1;
    const topi::Conv2dShape& shape = plan.shape;
    const int64_t ic_bn = plan.in_block, oc_bn = plan.out_block;
    const int packed_x = BlockedOf(x, ic_bn);
    const bool input_halo = !plan.depthwise && shape.pad > 0 && HaloOf(packed_x) >= shape.pad;
    const std::vector<float> weights = Floats(*g_.values[w].data);
    std::vector<float> packed;
    std::vector<int64_t> pw_shape;
    if (plan.depthwise) {
      packed = task::ToNCHWc(weights, {1, shape.c, shape.r, shape.s}, ic_bn);
      pw_shape = {shape.c / ic_bn, shape.r, shape.s, ic_bn};
    } else if (plan.winograd) {
      const int64_t m = topi::WinogradTile(*plan.config), alpha = m + 2;
      packed = topi::WinogradWeights(weights, shape, m, ic_bn, oc_bn);
      pw_shape = {alpha, alpha, shape.k / oc_bn, shape.c / ic_bn, ic_bn, oc_bn};
    } else {
      packed = task::ToOIHWio(weights, {shape.k, shape.c, shape.r, shape.s}, ic_bn, oc_bn);
      pw_shape = {shape.k / oc_bn, shape.c / ic_bn, shape.r, shape.s, ic_bn, oc_bn};
    }
    const char* weight_form = plan.depthwise ? "_packed" : plan.winograd ? "_winograd" : "_OIHWio";
    int pw = AddParam(g_.values[w].name + weight_form,
                      HostArray(pw_shape, DLType(graph::DType::kFloat32), packed.data(),
                                packed.size() * sizeof(float)));
    std::vector<int64_t> blocked_shape = {shape.n, shape.k / oc_bn, shape.oh(), shape.ow(), oc_bn};
    const std::string kernel = plan.depthwise  ? "depthwise_conv2d_NCHWc"
                               : plan.winograd ? "conv2d_winograd_NCHWc"
                                               : "conv2d_NCHWc";
    // The template's op: `epilogue` fused, the data read in its halo where it has one.
    auto instantiate = [&](const topi::OutputEpilogue* epilogue) {
      if (plan.depthwise) return topi::DepthwiseConv2dNCHWcX86(shape, *plan.config, epilogue);
      if (plan.winograd) return topi::Conv2dWinogradX86(shape, *plan.config, epilogue, input_halo);
      return topi::Conv2dNCHWcX86(shape, *plan.config, epilogue, input_halo);
    };
    auto read = [oc_bn](const te::Tensor& t, const std::vector<Var>& i) {
      return t(i[0], ir::floordiv(i[1], I(oc_bn)), i[2], i[3], ir::floormod(i[1], I(oc_bn)));
    };
    const int value = group.back()->outputs[0];
    if ((bias >= 0 || group.size() > 1) && OutputBlock(value, oc_bn) == oc_bn) {
      // The epilogue runs in the template's output stage, on the accumulators: one kernel.
      Args args;
      auto output = [&](const te::Tensor& result) {
        return ToBlocked(GroupValue(group, result, bias, 1, read, &args), oc_bn,
                         g_.values[value].name + "_NCHWc");
      };
      // A first pass on a stand-in collects the epilogue's inputs; the template's pass then
      // finds them in `args`.
      output(te::placeholder(ShapeExprs(blocked_shape), ir::DataType::Float(32), "stand_in"));
      topi::OutputEpilogue epilogue{output, args.tensors};
      topi::ScheduledOp op = instantiate(&epilogue);
      int out = NewBlockedTensor(value, oc_bn, g_.values[value].name + "_NCHWc");
      value_blocked_[value][oc_bn] = out;
      std::vector<int> inputs = {packed_x, pw};
      inputs.insert(inputs.end(), args.ids.begin(), args.ids.end());
      AddKernel(GroupName(group), kernel, op, inputs, {out});
      return true;
    }
    // Without bias or chain, Epilogue takes this tensor as the value's when its readers take
    // the block: then it keeps their halo.
    int blocked = bias < 0 && group.size() == 1
                      ? NewBlockedTensor(conv.outputs[0], oc_bn, conv.name + "_NCHWc")
                      : NewTensor(conv.name + "_NCHWc", DLType(graph::DType::kFloat32),
                                  blocked_shape, kNewBuffer);
    AddKernel(conv.name, kernel, instantiate(nullptr), {packed_x, pw}, {blocked});
    Epilogue(group, blocked, bias, 1, read, blocked_shape, oc_bn);
    return true;
  }

  bool EmitDense(const std::vector<const Node*>& group) {
    const Node& node = *group[0];
    int a = node.inputs[0], bw = node.inputs[1];
    const auto& as = g_.values[a].shape;
    const auto& bs = g_.values[bw].shape;
    bool gemm = node.op == "Gemm";
    if (!IsParam(bw) || IsParam(a) || bs.size() != 2 || as.size() < 2) return false;
    if (gemm &&
        (node.Int("transA", 0) || node.Float("alpha", 1) != 1 || node.Float("beta", 1) != 1)) {
      return false;
    }
    bool trans_b = gemm && node.Int("transB", 0);
    const int64_t k = as.back(), n = trans_b ? bs[0] : bs[1];
    const int64_t m = graph::NumElements(as) / k;
    double flops = 0;
    const task::Task* task =
        MakeTask(kernels_.gpu() ? "dense.cuda" : "dense.x86", {m, n, k}, &flops);
    if (!task) return false;
    space::ConfigEntity config = Configure(node, *task);
    // Weights as W[n, k]: as they are for the GPU, in column blocks of bn for the CPU.
    const graph::TensorData& wd = *g_.values[bw].data;
    std::vector<float> w(static_cast<size_t>(n * k));
    for (int64_t r = 0; r < n; ++r) {
      for (int64_t c = 0; c < k; ++c) {
        w[r * k + c] = trans_b ? wd.f32()[r * k + c] : wd.f32()[c * n + r];
      }
    }
    const DLDataType f32 = DLType(graph::DType::kFloat32);
    int pw = -1;
    if (kernels_.gpu()) {
      pw = AddParam(g_.values[bw].name + "_NK",
                    HostArray({n, k}, f32, w.data(), w.size() * sizeof(float)));
    } else {
      const int64_t bn = topi::DenseWeightBlock(config);
      std::vector<float> packed = task::ToColumnBlocks(w, n, k, bn);
      pw = AddParam(g_.values[bw].name + "_packed",
                    HostArray({n / bn, k, bn}, f32, packed.data(), packed.size() * sizeof(float)));
    }
    int a2 = Alias(TensorOf(a), {m, k}, g_.values[a].name + "_2d");
    const Value& out = g_.values[node.outputs[0]];
    int bias = gemm && node.inputs.size() > 2 ? node.inputs[2] : -1;
    if (!kernels_.gpu() && (bias >= 0 || group.size() > 1)) {
      // Bias, activation and residual add run in the template's output stage: one kernel.
      const Value& last = g_.values[group.back()->outputs[0]];
      Args args;
      auto output = [&](const te::Tensor& result) {
        auto read = [&](const te::Tensor& t, const std::vector<Var>& i) {
          return t(RowOf(i, out.shape), i.back());
        };
        te::Tensor value = GroupValue(group, result, bias, -1, read, &args);
        return te::compute(
            {I(m), I(n)},
            [&](Var y, Var x) {
              std::vector<Expr> index = Unflatten(y, last.shape);
              index.push_back(x);
              return value(index);
            },
            last.name + "_2d");
      };
      // A first pass on a stand-in collects the epilogue's inputs; the template's pass then
      // finds them in `args`.
      output(te::placeholder({I(m), I(n)}, ir::DataType::Float(32), "stand_in"));
      topi::OutputEpilogue epilogue{output, args.tensors};
      topi::DenseShape shape{m, n, k};
      int raw = NewTensor(last.name + "_2d", f32, {m, n}, kNewBuffer);
      std::vector<int> inputs = {a2, pw};
      inputs.insert(inputs.end(), args.ids.begin(), args.ids.end());
      AddKernel(GroupName(group), "dense", topi::DenseX86(shape, config, &epilogue), inputs, {raw});
      value_tensor_[group.back()->outputs[0]] = Alias(raw, last.shape, last.name);
      return true;
    }
    const std::string symbol = Symbol(exec_.nodes.size(), "dense");
    if (!AddTemplateKernel(node, task->Instantiate(config), symbol)) return false;
    int raw = NewTensor(node.name + "_dense", f32, {m, n}, kNewBuffer);
    exec_.nodes.push_back({node.name, symbol, {a2, pw}, {raw}});
    int shaped = Alias(raw, out.shape, node.name + "_dense_nd");
    Epilogue(group, shaped, bias, -1, {}, out.shape);
    return true;
  }

  // The row of a matrix whose rows are the leading dimensions of `shape` (the last is the
  // column): the flat offset of `i`'s leading indices.
  static Expr RowOf(const std::vector<Var>& i, const std::vector<int64_t>& shape) {
    Expr row = I(0);
    for (size_t d = 0; d + 1 < shape.size(); ++d) {
      if (shape[d] != 1) row = row * I(shape[d]) + i[d];
    }
    return row;
  }

  // The leading indices of `shape` at flat row `row` (the inverse of `RowOf`).
  static std::vector<Expr> Unflatten(const Var& row, const std::vector<int64_t>& shape) {
    std::vector<Expr> index(shape.size() - 1, I(0));
    Expr rest = row;
    int64_t inner = 1;
    for (size_t d = shape.size() - 1; d-- > 0;) {
      if (shape[d] == 1) continue;
      index[d] = inner == 1 && graph::NumElements(shape) / shape.back() == shape[d]
                     ? rest
                     : ir::floormod(ir::floordiv(rest, I(inner)), I(shape[d]));
      inner *= shape[d];
    }
    return index;
  }

  bool EmitBatchMatmul(const std::vector<const Node*>& group) {
    const Node& node = *group[0];
    int a = node.inputs[0], bv = node.inputs[1];
    const auto& as = g_.values[a].shape;
    const auto& bs = g_.values[bv].shape;
    if (node.op != "MatMul" || IsParam(a) || IsParam(bv) || as.size() < 3 ||
        as.size() != bs.size() || !std::equal(as.begin(), as.end() - 2, bs.begin())) {
      return false;
    }
    const int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
    const int64_t batch = graph::NumElements(as) / (m * k);
    double flops = 0;
    const task::Task* task = MakeTask("batch_matmul.x86", {batch, m, n, k}, &flops);
    if (!task) return false;
    space::ConfigEntity config = Configure(node, *task);
    int b3 = Alias(TensorOf(bv), {batch, k, n}, g_.values[bv].name + "_3d");
    int a3 = Alias(TensorOf(a), {batch, m, k}, g_.values[a].name + "_3d");
    int raw =
        NewTensor(node.name + "_bmm", DLType(graph::DType::kFloat32), {batch, m, n}, kNewBuffer);
    AddKernel(node.name, "batch_matmul", task->Instantiate(config), {a3, b3}, {raw});
    const Value& out = g_.values[node.outputs[0]];
    Epilogue(group, Alias(raw, out.shape, node.name + "_nd"), -1, 0, {}, out.shape);
    return true;
  }

  // A pooling whose input was written blocked, and whose output can stay so, runs in that layout
  // (vectors along the channel block; through a plain view its windows read scattered values).
  bool EmitPoolBlocked(const Node& node) {
    const int x = node.inputs[0], out_value = node.outputs[0];
    auto blocked = value_blocked_.find(x);
    if (value_tensor_[x] >= 0 || blocked == value_blocked_.end() || blocked->second.empty()) {
      return false;
    }
    const auto [bn, id] = *blocked->second.begin();
    if (node.outputs.size() != 1 || OutputBlock(out_value, bn) != bn) return false;
    const auto& xs = g_.values[x].shape;
    te::Tensor in = te::placeholder(ShapeExprs({xs[0], xs[1] / bn, xs[2], xs[3], bn}),
                                    ir::DataType::Float(32), "in0");
    te::Tensor result = driver::PoolNCHWc(g_, node, in, xs);
    const Value& v = g_.values[out_value];
    int out = NewBlockedTensor(out_value, bn, v.name + "_NCHWc");
    value_blocked_[out_value][bn] = out;
    AddKernel(node.name, node.op, driver::DefaultSchedule(result), {in, result}, {id}, {out});
    return true;
  }

  void EmitPlain(const std::vector<const Node*>& group) {
    const Node& anchor = *group[0];
    if (group.size() == 1 && (anchor.op == "MaxPool" || anchor.op == "AveragePool") &&
        EmitPoolBlocked(anchor)) {
      return;
    }
    if (group.size() == 1 && ops::IsReshape(anchor.op) && !IsParam(anchor.inputs[0])) {
      const Value& out = g_.values[anchor.outputs[0]];
      value_tensor_[anchor.outputs[0]] = Alias(TensorOf(anchor.inputs[0]), out.shape, out.name);
      return;
    }
    for (size_t k = 0; k < (group.size() == 1 ? anchor.outputs.size() : 1); ++k) {
      Args args;
      te::Tensor result = driver::ComputeNode(g_, anchor, Operands(anchor, &args), k);
      result = Chain(group, 1, result, &args);
      int out_value = group.size() == 1 ? anchor.outputs[k] : group.back()->outputs[0];
      int out = KernelOutput(out_value, &result, args.block);
      if (kernels_.gpu() && result.shape().empty()) {
        // A scalar value: the GPU kernel writes it as one element through a [1] view.
        const te::Tensor scalar = result;
        result = te::compute(
            {I(1)}, [&](const std::vector<Var>&) { return scalar(std::vector<Expr>{}); },
            scalar.name() + "_1");
        out = Alias(out, {1}, exec_.tensors[out].name + "_1");
      }
      args.tensors.push_back(result);
      AddKernel(GroupName(group), anchor.op, Default(result, GroupName(group)), args.tensors,
                args.ids, {out});
    }
  }

  // A convolution through its GPU template (NCHW data, OIHW weights as they are), then the
  // epilogue kernel; false leaves it to the plain compute.
  bool EmitConvCUDA(const std::vector<const Node*>& group) {
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
    const int64_t groups = attrs.group;
    const bool depthwise = groups == xs[1] && ws[0] == xs[1] && ws[1] == 1;
    if (!depthwise && groups != 1) return false;
    double flops = 0;
    const task::Task* task =
        depthwise ? MakeTask("depthwise_conv2d.cuda",
                             {sh.n, sh.c, sh.h, sh.w, sh.r, sh.s, sh.stride, sh.pad}, &flops)
                  : MakeTask("conv2d_nchw.cuda",
                             {sh.n, sh.c, sh.h, sh.w, sh.k, sh.r, sh.s, sh.stride, sh.pad}, &flops);
    if (!task) return false;
    const int xi = TensorOf(x), wi = TensorOf(w);
    const std::string symbol =
        Symbol(exec_.nodes.size(), depthwise ? "depthwise_conv2d" : "conv2d");
    if (!AddTemplateKernel(conv, task->Instantiate(Configure(conv, *task)), symbol)) return false;
    const std::vector<int64_t> shape = {sh.n, sh.k, sh.oh(), sh.ow()};
    const int out =
        NewTensor(conv.name + "_conv", DLType(graph::DType::kFloat32), shape, kNewBuffer);
    exec_.nodes.push_back({conv.name, symbol, {xi, wi}, {out}});
    Epilogue(group, out, conv.inputs.size() > 2 ? conv.inputs[2] : -1, 1, {}, shape);
    return true;
  }

  // Lowers a template's kernel as `symbol` (the caller adds its node). On a GPU, a config beyond
  // the device limits (a fallback config for a large filter) returns false with a note: the node
  // then runs as its plain compute.
  bool AddTemplateKernel(const Node& node, const topi::ScheduledOp& op, const std::string& symbol) {
    if (dry_run_) return true;
    if (!kernels_.gpu()) {
      kernels_.Add(op.schedule, op.args, symbol);
      return true;
    }
    try {
      kernels_.Add(op.schedule, op.args, symbol);
      return true;
    } catch (const UserError& e) {
      (options_.warnings ? *options_.warnings : std::cerr)
          << "note: " << node.name << ": its template's config does not fit the GPU (" << e.what()
          << "); it runs as the plain compute with the default schedule\n";
      if (!configs_.empty() && configs_.back().node == node.name) configs_.pop_back();
      return false;
    }
  }

  void EmitGroup(const std::vector<const Node*>& group) {
    const std::string& op = group[0]->op;
    if (kernels_.gpu()) {
      if (op == "Conv" && EmitConvCUDA(group)) return;
      if ((op == "Gemm" || op == "MatMul") && EmitDense(group)) return;
      return EmitPlain(group);
    }
    if (op == "Conv" && EmitConv(group)) return;
    if ((op == "Gemm" || op == "MatMul") && EmitDense(group)) return;
    if (op == "MatMul" && EmitBatchMatmul(group)) return;
    EmitPlain(group);
  }

  Graph& g_;
  const ModelBuildOptions& options_;
  bool dry_run_;
  std::vector<int> value_tensor_;
  runtime::ExecGraph exec_;
  std::vector<int> tensor_buffer_;
  std::vector<int64_t> buffer_bytes_;
  std::set<std::string> names_;
  std::map<std::string, runtime::NDArray> params_;
  driver::ModelKernels kernels_;
  std::vector<ModelTask> tasks_;
  std::vector<KernelConfig> configs_;
  std::vector<std::unique_ptr<task::Task>> tasks_storage_;
  std::map<const Node*, ConvPlan> conv_plans_;
  std::map<int, std::map<int64_t, int>> value_blocked_;  // value -> block -> blocked tensor
  std::map<int, int64_t> tensor_halo_;  // blocked tensor -> rows and columns of zeros around it
  const std::vector<int> producer_ = g_.Producers();  // the graph's nodes stay as they are
  std::vector<bool> is_output_ = [this] {
    std::vector<bool> out(g_.values.size(), false);
    for (int v : g_.outputs) out[v] = true;
    return out;
  }();
};

void Optimize(Graph& g, const ModelBuildOptions& options) {
  graph::OptimizeGraph(g, options.after_pass);
}

}  // namespace

std::string ModelBuild::CoverageLine() const {
  int tuned = 0, other_threads = 0;
  double flops = 0, tuned_flops = 0;
  std::string untuned;
  int counted = 0;
  for (const ModelTask& t : tasks) {
    if (!t.alternative_to.empty()) continue;  // counted as the task it replaces
    ++counted;
    flops += t.flops * t.weight;
    other_threads += t.other_threads ? 1 : 0;
    if (t.tuned) {
      ++tuned;
      tuned_flops += t.flops * t.weight;
    } else {
      untuned += (untuned.empty() ? "" : ", ") + t.workload_key;
    }
  }
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(1);
  os << "coverage: tuned " << tuned << "/" << counted << " tasks, "
     << (flops > 0 ? 100.0 * tuned_flops / flops : 0.0) << "% of template FLOPs";
  if (other_threads > 0) {
    os << " (" << other_threads
       << " with records of the default thread count: none at -num-threads)";
  }
  if (!untuned.empty()) os << "; untuned: " << untuned;
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

ModelBuild BuildModel(graph::Graph g, const ModelBuildOptions& options) {
  Optimize(g, options);
  ModelBuilder builder(g, options, /*dry_run=*/false);
  builder.Run();
  return builder.Finish();
}

std::vector<ModelTask> ExtractTasks(graph::Graph g, const ModelBuildOptions& options) {
  Optimize(g, options);
  ModelBuilder builder(g, options, /*dry_run=*/true);
  builder.Run();
  return builder.Finish().tasks;
}

}  // namespace tessera
