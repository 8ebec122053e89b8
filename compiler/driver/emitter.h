// Private to build_model: the emitter behind `EmitModel`, which carries a `ModelPlan` out
// (emitter.cc: tensors, layouts, kernels and epilogues; emit_conv.cc: convolutions; emit_dense.cc:
// dense layers and batched products; emit_plain.cc: plain groups, blocked pooling, reshapes).
#ifndef TESSERA_COMPILER_DRIVER_EMITTER_H_
#define TESSERA_COMPILER_DRIVER_EMITTER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "compiler/driver/build_model.h"
#include "compiler/driver/model_kernels.h"
#include "compiler/driver/model_plan.h"
#include "compiler/driver/op_compute.h"
#include "compiler/driver/planner.h"
#include "compiler/ir/expr.h"
#include "compiler/te/tensor.h"
#include "compiler/topi/scheduled_op.h"
#include "runtime/graph_executor.h"
#include "runtime/ndarray.h"

namespace tessera {
namespace driver {

// An int32 immediate.
ir::Expr I(int64_t v);
// `shape` as immediates.
std::vector<ir::Expr> ShapeExprs(const std::vector<int64_t>& shape);
// The runtime type of a graph type.
DLDataType DLType(graph::DType t);
// A float32 constant's elements.
std::vector<float> Floats(const graph::TensorData& t);
// A host array of `shape` holding `bytes` bytes from `data`.
runtime::NDArray HostArray(const std::vector<int64_t>& shape, DLDataType dtype, const void* data,
                           size_t bytes);
// The kernel symbol of the `index`-th node, running `op`.
std::string Symbol(size_t index, const std::string& op);

// Carries a plan out, group by group: `Run`, then `Finish`.
class ModelEmitter {
 public:
  ModelEmitter(const ModelPlan& plan, const ModelBuildOptions& options);

  void Run();
  ModelBuild Finish();

 private:
  using Node = graph::Node;
  using Value = graph::Value;
  using ReadFn = std::function<ir::Expr(const te::Tensor&, const std::vector<ir::Var>&)>;

  static constexpr int kNewBuffer = -2;
  static constexpr int kParam = -1;

  // Kernel arguments gathered while building a compute.
  struct Args {
    std::vector<te::Tensor> tensors;
    std::vector<int> ids;
    std::map<int, te::Tensor> by_value;
  };

  // emitter.cc: tensors and layouts.
  int NewTensor(const std::string& name, DLDataType dtype, std::vector<int64_t> shape, int buffer);
  int AddParam(const std::string& name, runtime::NDArray value);
  // The execution tensor of a graph value in the plain layout (constants become parameters on
  // first use; a value written blocked is unpacked by a kernel on its first plain read).
  int TensorOf(int value);
  // The execution tensor of a float32 NCHW value in the NCHW[bn]c layout: as its producer wrote
  // it, else packed from the plain layout or repacked from another block by a kernel (once).
  int BlockedOf(int value, int64_t bn);
  // A tensor sharing `of`'s buffer with another shape (a free reshape).
  int Alias(int of, const std::vector<int64_t>& shape, const std::string& name);
  // The halo the plan gives the NCHW[bn]c form of `value`.
  int64_t HaloFor(int value, int64_t bn) const;
  // A new tensor for the NCHW[bn]c form of the 4-D `value`, with the halo its readers take.
  int NewBlockedTensor(int value, int64_t bn, const std::string& name, int64_t halo = -1);
  int64_t HaloOf(int tensor) const;
  bool IsParam(int value) const { return g_.values[value].is_constant(); }
  // The layout the plan has `value` written in (0: plain).
  int64_t OutputBlock(int value) const { return plan_.values[value].block; }
  // Registers `result` (the value of `out_value`, computed in the plain index space) as a kernel
  // output: plain, or blocked as the plan has it. Returns the output tensor.
  int KernelOutput(int out_value, te::Tensor* result);
  static std::vector<int64_t> BlockedShape(const std::vector<int64_t>& s, int64_t bn);
  // Reads an NCHW[bn]c tensor at plain NCHW indices.
  static ReadFn BlockedRead(int64_t bn);
  // `plain` (NCHW) written in NCHW[bn]c.
  static te::Tensor ToBlocked(const te::Tensor& plain, int64_t bn, const std::string& name);

  // emitter.cc: kernels.
  void AddKernel(const std::string& name, const std::string& op, const te::Schedule& schedule,
                 const std::vector<te::Tensor>& args, std::vector<int> inputs,
                 std::vector<int> outputs);
  void AddKernel(const std::string& name, const std::string& op, const topi::ScheduledOp& k,
                 std::vector<int> inputs, std::vector<int> outputs);
  // The halos of a kernel's arguments (its inputs, then its outputs), for lowering.
  std::vector<std::vector<int64_t>> ArgHalos(const std::vector<int>& inputs,
                                             const std::vector<int>& outputs, size_t args) const;
  // The default schedule of a kernel computing `result` for the target.
  te::Schedule Default(const te::Tensor& result, const std::string& what) const;
  // Lowers a template's kernel as `symbol` (the caller adds its node). On a GPU, a config beyond
  // the device limits (a fallback config for a large filter) returns false with a note: the node
  // then runs as its plain compute.
  bool AddTemplateKernel(const Node& node, const topi::ScheduledOp& op, const std::string& symbol);

  // emitter.cc: computes and epilogues.
  Operand External(int value, Args* args);
  std::vector<Operand> Operands(const Node& node, Args* args, int chained = -1,
                                const te::Tensor& chained_tensor = te::Tensor());
  // Applies the elementwise chain of a group after `base` (the value of `group[first]`'s output).
  te::Tensor Chain(const std::vector<const Node*>& group, size_t first, te::Tensor base,
                   Args* args);
  // Finishes a template group: the epilogue kernel reads `base` (a tensor of the anchor's output
  // shape, or its NCHW[block]c form through `read`), adds `bias` (per channel of `channel_axis`,
  // or broadcast like numpy when it is -1) and runs the chain; without either, `base_tensor` is
  // the value itself when its layout suits the readers.
  void Epilogue(const std::vector<const Node*>& group, int base_tensor, int bias_value,
                int channel_axis, const ReadFn& read, const std::vector<int64_t>& base_shape,
                int64_t block = 0);
  // The value of a template group in the plain index space: the anchor's result `base` (read
  // through `read` when it is blocked), plus `bias`, then the group's elementwise chain.
  te::Tensor GroupValue(const std::vector<const Node*>& group, const te::Tensor& base,
                        int bias_value, int channel_axis, const ReadFn& read, Args* args);

  // Emits the group's kernels, then names the template kernel's workload, config source and
  // FLOPs on its call (for profiles).
  void EmitGroup(const GroupPlan& plan, const std::vector<const Node*>& group);
  void EmitKernels(const GroupPlan& plan, const std::vector<const Node*>& group);

  // emit_conv.cc.
  void EmitConv(const GroupPlan& plan, const std::vector<const Node*>& group);
  // The output stage of a blocked convolution template that runs `group`'s bias and chain:
  // `to_float` (null: none) of the template's result of `result_type` and `blocked_shape`, then
  // the bias and chain, written in blocks of `oc_bn`. The stage's inputs are gathered in `args`
  // (which must outlive the epilogue): a first pass on a stand-in collects them.
  topi::OutputEpilogue FusedEpilogue(const std::vector<const Node*>& group, int bias, int64_t oc_bn,
                                     const std::vector<int64_t>& blocked_shape,
                                     ir::DataType result_type,
                                     std::function<te::Tensor(const te::Tensor&)> to_float,
                                     Args* args);
  // The kernel of a template `op` with a fused epilogue: `inputs` (the template's) then the
  // epilogue's `args`, writing the group's value blocked in `oc_bn`.
  void AddFusedKernel(const std::vector<const Node*>& group, const std::string& kernel,
                      const topi::ScheduledOp& op, std::vector<int> inputs, const Args& args,
                      int64_t oc_bn);
  // emit_int8.cc: quantized convolutions and dense layers through the int8 templates.
  void EmitConvInt8(const GroupPlan& plan, const std::vector<const Node*>& group);
  void EmitDenseInt8(const GroupPlan& plan, const std::vector<const Node*>& group);
  int Int8InputWords(const GroupPlan& plan, const Node& conv, int64_t ic_words);
  // The output stage's per-channel inputs of an int8 kernel: the zero point's share of the sums
  // (int32) and the dequantizing scale (float32), as parameters named after `name`.
  Args DequantizationArgs(const std::string& name, const std::vector<int32_t>& correction,
                          const std::vector<float>& scale);
  // The float tensor `input` (of `shape`) quantized to uint8 by `plan`'s input scale and zero
  // point in a kernel of its own; returns the int32 words of `words_shape` that view its bytes.
  int QuantizedBytesAsWords(int input, const std::vector<int64_t>& shape, const GroupPlan& plan,
                            const std::vector<int64_t>& words_shape, const std::string& name);
  // A convolution through its GPU template (NCHW data, OIHW weights as they are), then the
  // epilogue kernel; false leaves it to the plain compute.
  bool EmitConvCUDA(const GroupPlan& plan, const std::vector<const Node*>& group);

  // emit_dense.cc.
  // False: the GPU cannot run the config; the group runs as its plain compute.
  bool EmitDense(const GroupPlan& plan, const std::vector<const Node*>& group);
  // The output stage of a dense template that runs `group`'s bias and chain on its m × n result
  // of `result_type`, `to_float` (null: none) of it first; inputs gathered in `args` (which must
  // outlive the epilogue) as FusedEpilogue's are.
  topi::OutputEpilogue FusedDenseEpilogue(const std::vector<const Node*>& group, int bias,
                                          int64_t m, int64_t n, ir::DataType result_type,
                                          std::function<te::Tensor(const te::Tensor&)> to_float,
                                          Args* args);
  // The row of a matrix whose rows are the leading dimensions of `shape` (the last is the
  // column): the flat offset of `i`'s leading indices.
  static ir::Expr RowOf(const std::vector<ir::Var>& i, const std::vector<int64_t>& shape);
  // The leading indices of `shape` at flat row `row` (the inverse of `RowOf`).
  static std::vector<ir::Expr> Unflatten(const ir::Var& row, const std::vector<int64_t>& shape);
  void EmitBatchMatmul(const GroupPlan& plan, const std::vector<const Node*>& group);

  // emit_plain.cc.
  // A pooling whose input was written blocked, and whose output can stay so, runs in that layout
  // (vectors along the channel block; through a plain view its windows read scattered values).
  void EmitPoolBlocked(const GroupPlan& plan, const std::vector<const Node*>& group);
  void EmitConcatBlocked(const GroupPlan& plan, const std::vector<const Node*>& group);
  // A concatenation and channel shuffle in its inputs' block (channel_shuffle.h).
  void EmitShuffleBlocked(const GroupPlan& plan, const std::vector<const Node*>& group);
  void EmitPlain(const std::vector<const Node*>& group);
  // A reshape of a computed value: a view of its buffer.
  void EmitReshapeAlias(const Node& node);

  const ModelPlan& plan_;
  const graph::Graph& g_;
  const ModelBuildOptions& options_;
  std::vector<int> value_tensor_;
  runtime::ExecGraph exec_;
  std::vector<int> tensor_buffer_;
  std::vector<int64_t> buffer_bytes_;
  std::set<std::string> names_;
  std::map<std::string, runtime::NDArray> params_;
  ModelKernels kernels_;
  std::vector<KernelConfig> configs_;  // the plan's, less those a GPU could not run
  std::map<int, std::map<int64_t, int>> value_blocked_;  // value -> block -> blocked tensor
  std::map<int, int64_t> tensor_halo_;  // blocked tensor -> rows and columns of zeros around it
  // (value, block) -> the tensor of its uint8 quantization packed into words (emit_int8.cc)
  std::map<std::pair<int, int64_t>, int> quantized_words_;
};

}  // namespace driver
}  // namespace tessera

#endif  // TESSERA_COMPILER_DRIVER_EMITTER_H_
