// The emitter's tensors, layouts, kernels and epilogues, and its walk over the plan's groups.
#include "compiler/driver/emitter.h"

#include <algorithm>
#include <cctype>
#include <iostream>

#include "compiler/driver/memory_plan.h"
#include "compiler/support/error.h"
#include "compiler/topi/nchwc_layout.h"
#include "runtime/data_type.h"
#include "runtime/params.h"

namespace tessera {
namespace driver {

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
    case graph::DType::kUInt8:
      return runtime::MakeDataType(kDLUInt, 8);
    case graph::DType::kInt8:
      return runtime::MakeDataType(kDLInt, 8);
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

ModelEmitter::ModelEmitter(const ModelPlan& plan, const ModelBuildOptions& options)
    : plan_(plan),
      g_(plan.graph),
      options_(options),
      value_tensor_(plan.graph.values.size(), -1),
      kernels_(plan.target, options.emulate_gpu_serially),
      configs_(plan.configs) {}

void ModelEmitter::Run() {
  for (int in : g_.inputs) {
    value_tensor_[in] =
        NewTensor(g_.values[in].name, DLType(g_.values[in].dtype), g_.values[in].shape, kNewBuffer);
    exec_.inputs.push_back(value_tensor_[in]);
  }
  for (const GroupPlan& gp : plan_.groups) {
    std::vector<const Node*> group;
    for (int n : gp.nodes) group.push_back(&g_.nodes[n]);
    EmitGroup(gp, group);
  }
  for (int out : g_.outputs) exec_.outputs.push_back(TensorOf(out));
}

ModelBuild ModelEmitter::Finish() {
  ModelBuild result;
  result.tasks = plan_.tasks;
  result.configs = configs_;
  MemoryPlan plan = PlanMemory(exec_, tensor_buffer_, buffer_bytes_);
  result.planned_bytes = plan.planned_bytes;
  result.unplanned_bytes = plan.unplanned_bytes;
  kernels_.Build(&result);
  result.graph = std::move(exec_);
  result.params = std::move(params_);
  return result;
}

int ModelEmitter::NewTensor(const std::string& name, DLDataType dtype, std::vector<int64_t> shape,
                            int buffer) {
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

int ModelEmitter::AddParam(const std::string& name, runtime::NDArray value) {
  int id = NewTensor(name, value.DataType(), value.Shape(), kParam);
  params_[exec_.tensors[id].name] = std::move(value);
  return id;
}

int ModelEmitter::TensorOf(int value) {
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

int ModelEmitter::BlockedOf(int value, int64_t bn) {
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

int ModelEmitter::Alias(int of, const std::vector<int64_t>& shape, const std::string& name) {
  return NewTensor(name, exec_.tensors[of].dtype, shape, tensor_buffer_[of]);
}

int64_t ModelEmitter::HaloFor(int value, int64_t bn) const {
  const auto& halos = plan_.values[value].halos;
  auto it = halos.find(bn);
  TESSERA_INTERNAL_CHECK(it != halos.end())
      << "the plan has no NCHW" << bn << "c form of '" << g_.values[value].name << "'";
  return it->second;
}

int ModelEmitter::NewBlockedTensor(int value, int64_t bn, const std::string& name, int64_t halo) {
  const Value& v = g_.values[value];
  if (halo < 0) halo = HaloFor(value, bn);
  std::vector<int64_t> shape = BlockedShape(v.shape, bn);
  shape[2] += 2 * halo;
  shape[3] += 2 * halo;
  int id = NewTensor(name, DLType(v.dtype), shape, kNewBuffer);
  if (halo > 0) tensor_halo_[id] = halo;
  return id;
}

int64_t ModelEmitter::HaloOf(int tensor) const {
  auto it = tensor_halo_.find(tensor);
  return it == tensor_halo_.end() ? 0 : it->second;
}

void ModelEmitter::AddKernel(const std::string& name, const std::string& op,
                             const te::Schedule& schedule, const std::vector<te::Tensor>& args,
                             std::vector<int> inputs, std::vector<int> outputs) {
  std::string symbol = Symbol(exec_.nodes.size(), op);
  kernels_.Add(schedule, args, symbol, ArgHalos(inputs, outputs, args.size()));
  exec_.nodes.push_back({name, symbol, std::move(inputs), std::move(outputs)});
}

std::vector<std::vector<int64_t>> ModelEmitter::ArgHalos(const std::vector<int>& inputs,
                                                         const std::vector<int>& outputs,
                                                         size_t args) const {
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

te::Schedule ModelEmitter::Default(const te::Tensor& result, const std::string& what) const {
  return kernels_.gpu() ? DefaultScheduleCUDA(result, what) : DefaultSchedule(result);
}

void ModelEmitter::AddKernel(const std::string& name, const std::string& op,
                             const topi::ScheduledOp& k, std::vector<int> inputs,
                             std::vector<int> outputs) {
  AddKernel(name, op, k.schedule, k.args, std::move(inputs), std::move(outputs));
}

Operand ModelEmitter::External(int value, Args* args) {
  const Value& v = g_.values[value];
  Operand o;
  o.shape = v.shape;
  if (v.is_constant() && v.data->NumElements() == 1) {
    o.scalar = v.dtype == graph::DType::kFloat32
                   ? ir::FloatImm(ir::DataType::Float(32), v.data->At(0))
                   : ir::IntImm(KernelType(v.dtype), static_cast<int64_t>(v.data->At(0)));
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
    te::Tensor t = te::placeholder(ShapeExprs(BlockedShape(s, bn)), ir::DataType::Float(32),
                                   "in" + std::to_string(args->tensors.size()));
    args->tensors.push_back(t);
    args->ids.push_back(id);
    const ReadFn read = BlockedRead(bn);
    te::Tensor view = te::compute(
        ShapeExprs(s), [&](const std::vector<Var>& i) { return read(t, i); }, t.name() + "_view");
    it = args->by_value.emplace(value, view).first;
  }
  if (it == args->by_value.end()) {
    te::Tensor t = te::placeholder(ShapeExprs(v.shape), KernelType(v.dtype),
                                   "in" + std::to_string(args->tensors.size()));
    args->tensors.push_back(t);
    args->ids.push_back(TensorOf(value));
    it = args->by_value.emplace(value, t).first;
  }
  o.tensor = it->second;
  return o;
}

std::vector<Operand> ModelEmitter::Operands(const Node& node, Args* args, int chained,
                                            const te::Tensor& chained_tensor) {
  std::vector<Operand> ops;
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

te::Tensor ModelEmitter::Chain(const std::vector<const Node*>& group, size_t first, te::Tensor base,
                               Args* args) {
  int current = group[first - 1]->outputs[0];
  for (size_t i = first; i < group.size(); ++i) {
    base = ComputeNode(g_, *group[i], Operands(*group[i], args, current, base));
    current = group[i]->outputs[0];
  }
  return base;
}

void ModelEmitter::Epilogue(
    const std::vector<const Node*>& group, int base_tensor, int bias_value, int channel_axis,
    const std::function<Expr(const te::Tensor&, const std::vector<Var>&)>& read,
    const std::vector<int64_t>& base_shape, int64_t block) {
  const int anchor_value = group[0]->outputs[0];
  const Value& anchor_out = g_.values[anchor_value];
  if (bias_value < 0 && group.size() == 1) {
    if (!read && OutputBlock(anchor_value) == 0) {
      // The template's output is the value itself: it takes the value's name.
      names_.erase(exec_.tensors[base_tensor].name);
      exec_.tensors[base_tensor].name = anchor_out.name;
      names_.insert(anchor_out.name);
      value_tensor_[anchor_value] = base_tensor;
      return;
    }
    if (read && OutputBlock(anchor_value) == block) {
      value_blocked_[anchor_value][block] = base_tensor;
      return;
    }
  }
  Args args;
  te::Tensor base_in = te::placeholder(ShapeExprs(base_shape), ir::DataType::Float(32), "base");
  args.tensors.push_back(base_in);
  args.ids.push_back(base_tensor);
  te::Tensor result = GroupValue(group, base_in, bias_value, channel_axis, read, &args);
  int out = KernelOutput(group.back()->outputs[0], &result);
  args.tensors.push_back(result);
  AddKernel(GroupName(group), "epilogue", Default(result, GroupName(group)), args.tensors, args.ids,
            {out});
}

te::Tensor ModelEmitter::GroupValue(
    const std::vector<const Node*>& group, const te::Tensor& base, int bias_value, int channel_axis,
    const std::function<Expr(const te::Tensor&, const std::vector<Var>&)>& read, Args* args) {
  Operand bias;
  if (bias_value >= 0) bias = External(bias_value, args);
  te::Tensor value = te::compute(
      ShapeExprs(g_.values[group[0]->outputs[0]].shape),
      [&](const std::vector<Var>& i) {
        Expr v = read ? read(base, i) : base(E(i));
        if (bias.scalar.defined()) return v + bias.scalar;
        if (bias.tensor.defined()) {
          v = v + (channel_axis >= 0 ? bias.tensor(i[channel_axis]) : Read(bias, i));
        }
        return v;
      },
      group[0]->name + "_epilogue");
  return Chain(group, 1, value, args);
}

int ModelEmitter::KernelOutput(int out_value, te::Tensor* result) {
  const Value& v = g_.values[out_value];
  const int64_t bn = OutputBlock(out_value);
  if (bn == 0) {
    value_tensor_[out_value] = NewTensor(v.name, DLType(v.dtype), v.shape, kNewBuffer);
    return value_tensor_[out_value];
  }
  *result = ToBlocked(*result, bn, v.name + "_NCHWc");
  int id = NewBlockedTensor(out_value, bn, v.name + "_NCHWc");
  value_blocked_[out_value][bn] = id;
  return id;
}

ModelEmitter::ReadFn ModelEmitter::BlockedRead(int64_t bn) {
  return [bn](const te::Tensor& t, const std::vector<Var>& i) {
    return t(i[0], ir::floordiv(i[1], I(bn)), i[2], i[3], ir::floormod(i[1], I(bn)));
  };
}

std::vector<int64_t> ModelEmitter::BlockedShape(const std::vector<int64_t>& s, int64_t bn) {
  return {s[0], s[1] / bn, s[2], s[3], bn};
}

te::Tensor ModelEmitter::ToBlocked(const te::Tensor& plain, int64_t bn, const std::string& name) {
  std::vector<Expr> shape = plain.shape();
  shape[1] = I(*ir::AsConstInt(shape[1]) / bn);
  shape.push_back(I(bn));
  return te::compute(
      shape,
      [&](const std::vector<Var>& i) { return plain(i[0], i[1] * I(bn) + i[4], i[2], i[3]); },
      name);
}

bool ModelEmitter::AddTemplateKernel(const Node& node, const topi::ScheduledOp& op,
                                     const std::string& symbol) {
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
    auto noted = std::find_if(configs_.rbegin(), configs_.rend(),
                              [&](const KernelConfig& c) { return c.node == node.name; });
    if (noted != configs_.rend()) configs_.erase(std::next(noted).base());
    return false;
  }
}

void ModelEmitter::EmitGroup(const GroupPlan& plan, const std::vector<const Node*>& group) {
  const size_t first = exec_.nodes.size();
  EmitKernels(plan, group);
  if (!plan.task) return;
  // The template kernel is the group's first call named after its anchor (packs are named after
  // values, epilogues come after it); a template that fell back to the plain compute has no
  // config left to name.
  const std::string& anchor = group[0]->name;
  const bool kept = std::any_of(configs_.begin(), configs_.end(),
                                [&](const KernelConfig& c) { return c.node == anchor; });
  for (size_t i = first; kept && i < exec_.nodes.size(); ++i) {
    runtime::ExecNode& n = exec_.nodes[i];
    if (n.name != anchor && n.name.rfind(anchor + "+", 0) != 0) continue;
    n.workload = plan.task->workload_key();
    n.source = plan.source;
    n.flops = plan.task->flops();
    return;
  }
}

void ModelEmitter::EmitKernels(const GroupPlan& plan, const std::vector<const Node*>& group) {
  const Node& anchor = *group[0];
  switch (plan.path) {
    case KernelPath::kConvCPU:
    case KernelPath::kWinogradCPU:
    case KernelPath::kDepthwiseCPU:
      return EmitConv(plan, group);
    case KernelPath::kConvInt8CPU:
      return EmitConvInt8(plan, group);
    case KernelPath::kDenseInt8CPU:
      return EmitDenseInt8(plan, group);
    case KernelPath::kConvCUDA:
      if (!EmitConvCUDA(plan, group)) EmitPlain(group);
      return;
    case KernelPath::kDenseCPU:
    case KernelPath::kDenseCUDA:
      if (!EmitDense(plan, group)) EmitPlain(group);
      return;
    case KernelPath::kBatchMatmulCPU:
      return EmitBatchMatmul(plan, group);
    case KernelPath::kPoolBlocked:
      return EmitPoolBlocked(plan, group);
    case KernelPath::kConcatBlocked:
      return EmitConcatBlocked(plan, group);
    case KernelPath::kShuffleBlocked:
      return EmitShuffleBlocked(plan, group);
    case KernelPath::kReshapeAlias:
      return EmitReshapeAlias(anchor);
    case KernelPath::kPlain:
      return EmitPlain(group);
  }
}

}  // namespace driver
}  // namespace tessera
