#include "runtime/graph_executor.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include "runtime/data_type.h"
#include "runtime/device_api.h"
#include "runtime/error.h"
#include "runtime/params.h"
#include "runtime/read_file.h"
#include "runtime/thread_pool.h"

namespace tessera {
namespace runtime {
namespace {

std::string ReadText(const std::string& path) {
  std::optional<std::string> text = ReadFileBytes(path);
  TESSERA_CHECK(text.has_value()) << path << ": cannot open the file";
  return std::move(*text);
}

std::string Describe(const ExecTensor& t) {
  return DataTypeToString(t.dtype) + ShapeToString(t.shape);
}

}  // namespace

GraphExecutor::GraphExecutor(ExecGraph graph, const std::map<std::string, NDArray>& params,
                             Module kernels, DLDevice device)
    : graph_(std::move(graph)), device_(device), kernels_(std::move(kernels)) {
  for (int64_t bytes : graph_.storage_bytes) {
    storages_.push_back(
        NDArray::Empty({std::max<int64_t>(bytes, 1)}, MakeDataType(kDLUInt, 8), device_));
  }
  for (const ExecTensor& t : graph_.tensors) {
    if (t.storage >= 0) {
      tensors_.push_back(storages_[t.storage].CreateView(t.shape, t.dtype));
      continue;
    }
    auto it = params.find(t.name);
    TESSERA_CHECK(it != params.end())
        << "parameter '" << t.name << "' (" << Describe(t) << ") is missing from the params";
    const NDArray& p = it->second;
    TESSERA_CHECK(p.Shape() == t.shape && p.DataType() == t.dtype)
        << "parameter '" << t.name << "' is " << DataTypeToString(p.DataType())
        << ShapeToString(p.Shape()) << ", the graph expects " << Describe(t);
    tensors_.push_back(p->device.device_type == device_.device_type ? p : p.CopyTo(device_));
  }
  for (const ExecNode& n : graph_.nodes) {
    Call call;
    call.func = kernels_.GetFunction(n.function);
    TESSERA_CHECK(call.func.defined())
        << "the kernel library has no function '" << n.function << "' (node '" << n.name << "')";
    for (const std::vector<int>* ids : {&n.inputs, &n.outputs}) {
      for (int id : *ids) {
        TesseraValue v;
        v.v_handle = tensors_[id].get();
        call.values.push_back(v);
        call.codes.push_back(kTesseraDLTensorHandle);
      }
    }
    calls_.push_back(std::move(call));
  }
}

GraphExecutor GraphExecutor::LoadFromDirectory(const std::string& dir) {
  std::string graph_path = dir + "/" + ModelFiles::kGraph;
  ExecGraph graph = ExecGraph::Parse(ReadText(graph_path), graph_path);
  auto params = LoadParamsFromFile(dir + "/" + ModelFiles::kParams);
  Module kernels = Module::LoadFromFile(dir + "/" + ModelFiles::kKernels);
  return GraphExecutor(std::move(graph), params, kernels);
}

const ExecTensor& GraphExecutor::InputInfo(int i) const {
  TESSERA_CHECK(i >= 0 && i < NumInputs()) << "input index " << i << " is out of range (the "
                                           << "model has " << NumInputs() << " inputs)";
  return graph_.tensors[graph_.inputs[i]];
}

const ExecTensor& GraphExecutor::OutputInfo(int i) const {
  TESSERA_CHECK(i >= 0 && i < NumOutputs()) << "output index " << i << " is out of range (the "
                                            << "model has " << NumOutputs() << " outputs)";
  return graph_.tensors[graph_.outputs[i]];
}

int GraphExecutor::InputIndex(const std::string& name) const {
  std::string names;
  for (int i = 0; i < NumInputs(); ++i) {
    if (InputInfo(i).name == name) return i;
    names += " '" + InputInfo(i).name + "'";
  }
  TESSERA_CHECK(false) << "the model has no input '" << name << "' (inputs:" << names << ")";
  return -1;
}

int GraphExecutor::OutputIndex(const std::string& name) const {
  std::string names;
  for (int i = 0; i < NumOutputs(); ++i) {
    if (OutputInfo(i).name == name) return i;
    names += " '" + OutputInfo(i).name + "'";
  }
  TESSERA_CHECK(false) << "the model has no output '" << name << "' (outputs:" << names << ")";
  return -1;
}

void GraphExecutor::SetInput(int i, const NDArray& value) {
  const ExecTensor& info = InputInfo(i);
  TESSERA_CHECK(value.Shape() == info.shape && value.DataType() == info.dtype)
      << "input '" << info.name << "' expects " << Describe(info) << ", got "
      << DataTypeToString(value.DataType()) << ShapeToString(value.Shape());
  tensors_[graph_.inputs[i]].CopyFrom(value);
}

void GraphExecutor::RunCall(size_t n) {
  Call& call = calls_[n];
  RetValue ret;
  try {
    call.func.CallPacked(
        PackedArgs(call.values.data(), call.codes.data(), static_cast<int>(call.values.size())),
        &ret);
  } catch (const Error& e) {
    TESSERA_CHECK(false) << "node '" << graph_.nodes[n].name << "' (kernel '"
                         << graph_.nodes[n].function << "') failed: " << e.what();
  }
}

// Kernels on a GPU run asynchronously; a run (or a profiled call) ends when they have finished.
void GraphExecutor::WaitForDevice() {
  if (device_.device_type != kDLCPU) DeviceAPI::Get(device_)->Synchronize(device_.device_id);
}

void GraphExecutor::Run() {
  RunScope scope;
  for (size_t n = 0; n < calls_.size(); ++n) RunCall(n);
  WaitForDevice();
}

NDArray GraphExecutor::GetOutput(int i) const {
  OutputInfo(i);
  const NDArray& out = tensors_[graph_.outputs[i]];
  return device_.device_type == kDLCPU ? out : out.CopyTo(CPUDevice());
}

std::vector<NodeProfile> GraphExecutor::Profile(int runs) {
  std::vector<NodeProfile> profile(calls_.size());
  for (size_t n = 0; n < calls_.size(); ++n) {
    profile[n].name = graph_.nodes[n].name;
    profile[n].function = graph_.nodes[n].function;
    profile[n].workload = graph_.nodes[n].workload;
    profile[n].source = graph_.nodes[n].source;
    profile[n].flops = graph_.nodes[n].flops;
  }
  for (int r = 0; r < runs; ++r) {
    RunScope scope;
    for (size_t n = 0; n < calls_.size(); ++n) {
      auto start = std::chrono::steady_clock::now();
      RunCall(n);
      WaitForDevice();
      std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
      profile[n].mean_ms += took.count() / std::max(runs, 1);
    }
  }
  std::stable_sort(profile.begin(), profile.end(), [](const NodeProfile& a, const NodeProfile& b) {
    return a.mean_ms > b.mean_ms;
  });
  return profile;
}

int64_t GraphExecutor::PlannedBytes() const {
  int64_t total = 0;
  for (int64_t b : graph_.storage_bytes) total += b;
  return total;
}

}  // namespace runtime
}  // namespace tessera
