#include "compiler/driver/build_model.h"

#include <algorithm>
#include <iostream>
#include <set>
#include <sstream>

#include "common/file.h"
#include "compiler/driver/config_source.h"
#include "compiler/driver/memory_plan.h"
#include "compiler/driver/model_kernels.h"
#include "compiler/driver/model_plan.h"
#include "compiler/driver/op_compute.h"
#include "compiler/driver/planner.h"
#include "compiler/lower/lower.h"
#include "compiler/support/error.h"
#include "compiler/task/blocked_layout.h"
#include "compiler/task/task.h"
#include "compiler/topi/batch_matmul_x86.h"
#include "compiler/topi/conv2d_nchwc_x86.h"
#include "compiler/topi/conv2d_winograd_x86.h"
#include "compiler/topi/dense_x86.h"
#include "compiler/topi/depthwise_conv2d_nchwc_x86.h"
#include "compiler/topi/nchwc_layout.h"
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

class ModelBuilder {
 public:
  ModelBuilder(const ModelPlan& plan, const ModelBuildOptions& options)
      : plan_(plan),
        g_(plan.graph),
        options_(options),
        value_tensor_(plan.graph.values.size(), -1),
        kernels_(plan.target, options.emulate_gpu_serially),
        configs_(plan.configs) {}

  void Run() {
    for (int in : g_.inputs) {
      value_tensor_[in] = NewTensor(g_.values[in].name, DLType(g_.values[in].dtype),
                                    g_.values[in].shape, kNewBuffer);
      exec_.inputs.push_back(value_tensor_[in]);
    }
    for (const GroupPlan& gp : plan_.groups) {
      std::vector<const Node*> group;
      for (int n : gp.nodes) group.push_back(&g_.nodes[n]);
      EmitGroup(gp, group);
    }
    for (int out : g_.outputs) exec_.outputs.push_back(TensorOf(out));
  }

  ModelBuild Finish() {
    ModelBuild result;
    result.tasks = plan_.tasks;
    result.configs = configs_;
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

  // The halo the plan gives the NCHW[bn]c form of `value`.
  int64_t HaloFor(int value, int64_t bn) const {
    const auto& halos = plan_.values[value].halos;
    auto it = halos.find(bn);
    TESSERA_INTERNAL_CHECK(it != halos.end())
        << "the plan has no NCHW" << bn << "c form of '" << g_.values[value].name << "'";
    return it->second;
  }

  // A new tensor for the NCHW[bn]c form of the 4-D `value`, with the halo its readers take.
  int NewBlockedTensor(int value, int64_t bn, const std::string& name, int64_t halo = -1) {
    const Value& v = g_.values[value];
    if (halo < 0) halo = HaloFor(value, bn);
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
    kernels_.Add(schedule, args, symbol, ArgHalos(inputs, outputs, args.size()));
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
    AddKernel(driver::GroupName(group), "epilogue", Default(result, driver::GroupName(group)),
              args.tensors, args.ids, {out});
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

  // The layout the plan has `value` written in (0: plain).
  int64_t OutputBlock(int value) const { return plan_.values[value].block; }

  // Registers `result` (the value of `out_value`, computed in the plain index space) as a kernel
  // output: plain, or blocked as the plan has it. Returns the output tensor.
  int KernelOutput(int out_value, te::Tensor* result) {
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

  void EmitConv(const GroupPlan& plan, const std::vector<const Node*>& group) {
    const Node& conv = *group[0];
    const bool depthwise = plan.path == KernelPath::kDepthwiseX86;
    const bool winograd = plan.path == KernelPath::kWinogradX86;
    int x = conv.inputs[0], w = conv.inputs[1];
    int bias = conv.inputs.size() > 2 ? conv.inputs[2] : -1;
    const topi::Conv2dShape& shape = plan.conv;
    const int64_t ic_bn = plan.in_block, oc_bn = plan.out_block;
    const int packed_x = BlockedOf(x, ic_bn);
    const bool input_halo = plan.input_halo;
    const std::vector<float> weights = Floats(*g_.values[w].data);
    std::vector<float> packed;
    std::vector<int64_t> pw_shape;
    if (depthwise) {
      packed = task::ToNCHWc(weights, {1, shape.c, shape.r, shape.s}, ic_bn);
      pw_shape = {shape.c / ic_bn, shape.r, shape.s, ic_bn};
    } else if (winograd) {
      const int64_t m = topi::WinogradTile(*plan.config), alpha = m + 2;
      packed = topi::WinogradWeights(weights, shape, m, ic_bn, oc_bn);
      pw_shape = {alpha, alpha, shape.k / oc_bn, shape.c / ic_bn, ic_bn, oc_bn};
    } else {
      packed = task::ToOIHWio(weights, {shape.k, shape.c, shape.r, shape.s}, ic_bn, oc_bn);
      pw_shape = {shape.k / oc_bn, shape.c / ic_bn, shape.r, shape.s, ic_bn, oc_bn};
    }
    const char* weight_form = depthwise ? "_packed" : winograd ? "_winograd" : "_OIHWio";
    int pw = AddParam(g_.values[w].name + weight_form,
                      HostArray(pw_shape, DLType(graph::DType::kFloat32), packed.data(),
                                packed.size() * sizeof(float)));
    std::vector<int64_t> blocked_shape = {shape.n, shape.k / oc_bn, shape.oh(), shape.ow(), oc_bn};
    const std::string kernel = depthwise  ? "depthwise_conv2d_NCHWc"
                               : winograd ? "conv2d_winograd_NCHWc"
                                          : "conv2d_NCHWc";
    // The template's op: `epilogue` fused, the data read in its halo where it has one.
    auto instantiate = [&](const topi::OutputEpilogue* epilogue) {
      if (depthwise) return topi::DepthwiseConv2dNCHWcX86(shape, *plan.config, epilogue);
      if (winograd) return topi::Conv2dWinogradX86(shape, *plan.config, epilogue, input_halo);
      return topi::Conv2dNCHWcX86(shape, *plan.config, epilogue, input_halo);
    };
    auto read = [oc_bn](const te::Tensor& t, const std::vector<Var>& i) {
      return t(i[0], ir::floordiv(i[1], I(oc_bn)), i[2], i[3], ir::floormod(i[1], I(oc_bn)));
    };
    const int value = group.back()->outputs[0];
    if (plan.fused) {
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
      AddKernel(driver::GroupName(group), kernel, op, inputs, {out});
      return;
    }
    // Without bias or chain, Epilogue takes this tensor as the value's when its readers take
    // the block: then it keeps their halo.
    int blocked =
        bias < 0 && group.size() == 1
            ? NewBlockedTensor(conv.outputs[0], oc_bn, conv.name + "_NCHWc", plan.raw_halo)
            : NewTensor(conv.name + "_NCHWc", DLType(graph::DType::kFloat32), blocked_shape,
                        kNewBuffer);
    AddKernel(conv.name, kernel, instantiate(nullptr), {packed_x, pw}, {blocked});
    Epilogue(group, blocked, bias, 1, read, blocked_shape, oc_bn);
  }

  // False: the GPU cannot run the config; the group runs as its plain compute.
  bool EmitDense(const GroupPlan& plan, const std::vector<const Node*>& group) {
    const Node& node = *group[0];
    int a = node.inputs[0], bw = node.inputs[1];
    const auto& as = g_.values[a].shape;
    const auto& bs = g_.values[bw].shape;
    bool gemm = node.op == "Gemm";
    bool trans_b = gemm && node.Int("transB", 0);
    const int64_t k = as.back(), n = trans_b ? bs[0] : bs[1];
    const int64_t m = graph::NumElements(as) / k;
    const task::Task* task = plan.task.get();
    const space::ConfigEntity& config = *plan.config;
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
    if (plan.path == KernelPath::kDenseCUDA) {
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
    if (plan.fused) {
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
      AddKernel(driver::GroupName(group), "dense", topi::DenseX86(shape, config, &epilogue), inputs,
                {raw});
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

  void EmitBatchMatmul(const GroupPlan& plan, const std::vector<const Node*>& group) {
    const Node& node = *group[0];
    int a = node.inputs[0], bv = node.inputs[1];
    const auto& as = g_.values[a].shape;
    const auto& bs = g_.values[bv].shape;
    const int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
    const int64_t batch = graph::NumElements(as) / (m * k);
    const task::Task* task = plan.task.get();
    const space::ConfigEntity& config = *plan.config;
    int b3 = Alias(TensorOf(bv), {batch, k, n}, g_.values[bv].name + "_3d");
    int a3 = Alias(TensorOf(a), {batch, m, k}, g_.values[a].name + "_3d");
    int raw =
        NewTensor(node.name + "_bmm", DLType(graph::DType::kFloat32), {batch, m, n}, kNewBuffer);
    AddKernel(node.name, "batch_matmul", task->Instantiate(config), {a3, b3}, {raw});
    const Value& out = g_.values[node.outputs[0]];
    Epilogue(group, Alias(raw, out.shape, node.name + "_nd"), -1, 0, {}, out.shape);
  }

  // A pooling whose input was written blocked, and whose output can stay so, runs in that layout
  // (vectors along the channel block; through a plain view its windows read scattered values).
  void EmitPoolBlocked(const GroupPlan& plan, const Node& node) {
    const int x = node.inputs[0], out_value = node.outputs[0];
    const int64_t bn = plan.in_block;
    const int id = BlockedOf(x, bn);
    const auto& xs = g_.values[x].shape;
    te::Tensor in = te::placeholder(ShapeExprs({xs[0], xs[1] / bn, xs[2], xs[3], bn}),
                                    ir::DataType::Float(32), "in0");
    te::Tensor result = driver::PoolNCHWc(g_, node, in, xs);
    const Value& v = g_.values[out_value];
    int out = NewBlockedTensor(out_value, bn, v.name + "_NCHWc");
    value_blocked_[out_value][bn] = out;
    AddKernel(node.name, node.op, driver::DefaultSchedule(result), {in, result}, {id}, {out});
  }

  void EmitPlain(const std::vector<const Node*>& group) {
    const Node& anchor = *group[0];
    for (size_t k = 0; k < (group.size() == 1 ? anchor.outputs.size() : 1); ++k) {
      Args args;
      te::Tensor result = driver::ComputeNode(g_, anchor, Operands(anchor, &args), k);
      result = Chain(group, 1, result, &args);
      int out_value = group.size() == 1 ? anchor.outputs[k] : group.back()->outputs[0];
      int out = KernelOutput(out_value, &result);
      if (kernels_.gpu() && result.shape().empty()) {
        // A scalar value: the GPU kernel writes it as one element through a [1] view.
        const te::Tensor scalar = result;
        result = te::compute(
            {I(1)}, [&](const std::vector<Var>&) { return scalar(std::vector<Expr>{}); },
            scalar.name() + "_1");
        out = Alias(out, {1}, exec_.tensors[out].name + "_1");
      }
      args.tensors.push_back(result);
      AddKernel(driver::GroupName(group), anchor.op, Default(result, driver::GroupName(group)),
                args.tensors, args.ids, {out});
    }
  }

  // A convolution through its GPU template (NCHW data, OIHW weights as they are), then the
  // epilogue kernel; false leaves it to the plain compute.
  bool EmitConvCUDA(const GroupPlan& plan, const std::vector<const Node*>& group) {
    const Node& conv = *group[0];
    const int x = conv.inputs[0], w = conv.inputs[1];
    const topi::Conv2dShape& sh = plan.conv;
    const bool depthwise = plan.task->templ().name == std::string("depthwise_conv2d.cuda");
    const int xi = TensorOf(x), wi = TensorOf(w);
    const std::string symbol =
        Symbol(exec_.nodes.size(), depthwise ? "depthwise_conv2d" : "conv2d");
    if (!AddTemplateKernel(conv, plan.task->Instantiate(*plan.config), symbol)) return false;
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

  void EmitGroup(const GroupPlan& plan, const std::vector<const Node*>& group) {
    const Node& anchor = *group[0];
    switch (plan.path) {
      case KernelPath::kConvX86:
      case KernelPath::kWinogradX86:
      case KernelPath::kDepthwiseX86:
        return EmitConv(plan, group);
      case KernelPath::kConvCUDA:
        if (!EmitConvCUDA(plan, group)) EmitPlain(group);
        return;
      case KernelPath::kDenseX86:
      case KernelPath::kDenseCUDA:
        if (!EmitDense(plan, group)) EmitPlain(group);
        return;
      case KernelPath::kBatchMatmulX86:
        return EmitBatchMatmul(plan, group);
      case KernelPath::kPoolBlocked:
        return EmitPoolBlocked(plan, anchor);
      case KernelPath::kReshapeAlias: {
        const Value& out = g_.values[anchor.outputs[0]];
        value_tensor_[anchor.outputs[0]] = Alias(TensorOf(anchor.inputs[0]), out.shape, out.name);
        return;
      }
      case KernelPath::kPlain:
        return EmitPlain(group);
    }
  }

  const ModelPlan& plan_;
  const Graph& g_;
  const ModelBuildOptions& options_;
  std::vector<int> value_tensor_;
  runtime::ExecGraph exec_;
  std::vector<int> tensor_buffer_;
  std::vector<int64_t> buffer_bytes_;
  std::set<std::string> names_;
  std::map<std::string, runtime::NDArray> params_;
  driver::ModelKernels kernels_;
  std::vector<KernelConfig> configs_;  // the plan's, less those a GPU could not run
  std::map<int, std::map<int64_t, int>> value_blocked_;  // value -> block -> blocked tensor
  std::map<int, int64_t> tensor_halo_;  // blocked tensor -> rows and columns of zeros around it
};

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

ModelBuild EmitModel(const ModelPlan& plan, const ModelBuildOptions& options) {
  ModelBuilder builder(plan, options);
  builder.Run();
  return builder.Finish();
}

ModelBuild BuildModel(graph::Graph g, const ModelBuildOptions& options) {
  return EmitModel(PlanModel(std::move(g), options), options);
}

}  // namespace tessera
