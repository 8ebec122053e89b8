/// \file
/// `GraphExecutor`: runs a compiled model (execution graph + parameters + kernel library) with
/// the runtime alone. Buffers are allocated once, from the memory plan of the execution graph;
/// every kernel call's arguments are prepared at load time, so `Run` only calls kernels.
#ifndef TESSERA_RUNTIME_GRAPH_EXECUTOR_H_
#define TESSERA_RUNTIME_GRAPH_EXECUTOR_H_

#include <map>
#include <string>
#include <vector>

#include "runtime/data_type.h"
#include "runtime/exec_graph.h"
#include "runtime/module.h"
#include "runtime/ndarray.h"

namespace tessera {
namespace runtime {

/// File names of a compiled model directory (what `tessera compile -o DIR` writes).
struct ModelFiles {
  static constexpr const char* kGraph = "graph.txt";     ///< `ExecGraph` text
  static constexpr const char* kParams = "params.bin";   ///< `SaveParams` format
  static constexpr const char* kKernels = "kernels.so";  ///< kernel library
};

/// Time spent in one kernel call, averaged over the profiled runs.
struct NodeProfile {
  std::string name;      ///< graph node(s) it computes
  std::string function;  ///< kernel symbol
  double mean_ms = 0;    ///< mean time per run
  std::string workload;  ///< its template workload ("" for a default-scheduled kernel)
  std::string source;    ///< where its config came from (`ExecNode::source`)
  double flops = 0;      ///< floating-point operations per call (0: not counted)
};

/// Runs an execution graph.
class GraphExecutor {
 public:
  /// Prepares `graph` with `params` (by tensor name) and the kernels of `kernels` on `device`:
  /// the CPU, or a CUDA GPU for the kernels of a CUDA module (`runtime/cuda_module.h`), where the
  /// buffers are allocated and the parameters copied once. Throws `Error` naming the tensor or
  /// function for a missing parameter, a parameter of another shape or dtype, or a function the
  /// library lacks; "no CUDA device: ..." for a GPU this machine does not have.
  GraphExecutor(ExecGraph graph, const std::map<std::string, NDArray>& params, Module kernels,
                DLDevice device = CPUDevice());

  /// Loads the three files of a compiled model directory; throws `Error` naming the file.
  static GraphExecutor LoadFromDirectory(const std::string& dir);

  /// Number of model inputs.
  int NumInputs() const { return static_cast<int>(graph_.inputs.size()); }
  /// Number of model outputs.
  int NumOutputs() const { return static_cast<int>(graph_.outputs.size()); }
  /// Name, dtype and shape of input `i` (as a tensor of the execution graph).
  const ExecTensor& InputInfo(int i) const;
  /// Name, dtype and shape of output `i`.
  const ExecTensor& OutputInfo(int i) const;
  /// Index of the input called `name`; throws `Error` listing the inputs when there is none.
  int InputIndex(const std::string& name) const;
  /// Index of the output called `name`; throws `Error` listing the outputs.
  int OutputIndex(const std::string& name) const;

  /// Copies `value` into input `i`; throws `Error` naming the input for a shape or dtype
  /// mismatch.
  void SetInput(int i, const NDArray& value);
  /// Copies `value` into the input called `name`.
  void SetInput(const std::string& name, const NDArray& value) {
    SetInput(InputIndex(name), value);
  }
  /// Runs every kernel once, in order (on a GPU: and waits for them). Throws `Error` naming the
  /// node when a kernel fails.
  void Run();
  /// Output `i`: a view of the executor's buffer, valid until the next `Run`; for a model on a
  /// GPU, a host copy made by this call.
  NDArray GetOutput(int i) const;
  /// The output called `name`.
  NDArray GetOutput(const std::string& name) const { return GetOutput(OutputIndex(name)); }

  /// Runs `runs` times timing each kernel call; returns them slowest first.
  std::vector<NodeProfile> Profile(int runs);
  /// Bytes of the planned intermediate buffers (inputs and outputs included).
  int64_t PlannedBytes() const;
  /// Number of kernel calls per run.
  size_t NumKernelCalls() const { return graph_.nodes.size(); }
  /// The device the kernels run on.
  DLDevice device() const { return device_; }

 private:
  struct Call {
    PackedFunc func;
    std::vector<TesseraValue> values;
    std::vector<int32_t> codes;
  };
  void RunCall(size_t n);
  void WaitForDevice();

  ExecGraph graph_;
  DLDevice device_;
  Module kernels_;
  std::vector<NDArray> storages_;
  std::vector<NDArray> tensors_;
  std::vector<Call> calls_;
};

}  // namespace runtime
}  // namespace tessera

#endif  // TESSERA_RUNTIME_GRAPH_EXECUTOR_H_
