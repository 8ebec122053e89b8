#include "deploy/run_model.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <random>
#include <string_view>

#include "deploy/artifact.h"
#include "runtime/cuda_module.h"
#include "runtime/data_type.h"
#include "runtime/error.h"
#include "runtime/npy.h"
#include "runtime/params.h"

namespace tessera {
namespace deploy {
namespace {

runtime::NDArray RandomInput(const runtime::ExecTensor& info, std::mt19937& rng) {
  runtime::NDArray a = runtime::NDArray::Empty(info.shape, info.dtype, runtime::CPUDevice());
  std::uniform_real_distribution<float> dist(-1, 1);
  const int64_t n = a.NumElements();
  if (info.dtype.code == kDLFloat && info.dtype.bits == 32) {
    for (int64_t i = 0; i < n; ++i) a.Data<float>()[i] = dist(rng);
  } else {
    std::fill(a.Data<uint8_t>(), a.Data<uint8_t>() + a.NumBytes(), 0);  // indices 0, false
  }
  return a;
}

}  // namespace

LoadedModel LoadModel(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    // A CUDA model's kernels file is the CUDA module's text, not a shared library.
    const std::string kernels = path + "/" + runtime::ModelFiles::kKernels;
    std::ifstream file(kernels, std::ios::binary);
    char head[32] = {};
    file.read(head, sizeof(head));
    if (runtime::IsCUDAModuleText(std::string_view(head, static_cast<size_t>(file.gcount())))) {
      const std::string graph = path + "/" + runtime::ModelFiles::kGraph;
      return LoadedModel{{},
                         runtime::GraphExecutor(
                             runtime::ExecGraph::Parse(ReadArtifactFile(graph), graph),
                             runtime::LoadParamsFromFile(path + "/" + runtime::ModelFiles::kParams),
                             runtime::LoadCUDAModule(kernels), DLDevice{kDLCUDA, 0})};
    }
    return LoadedModel{{}, runtime::GraphExecutor::LoadFromDirectory(path)};
  }
  return LoadArtifact(path);
}

namespace {

// The arrays the specs ("NAME=file.npy") name, by input index (undefined where none is given).
std::vector<runtime::NDArray> ReadInputFiles(const std::vector<runtime::ExecTensor>& inputs,
                                             const std::vector<std::string>& specs) {
  std::vector<runtime::NDArray> arrays(inputs.size());
  for (const std::string& spec : specs) {
    size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw runtime::Error("--input '" + spec + "' is not NAME=file.npy");
    }
    const std::string name = spec.substr(0, eq);
    std::string names;
    size_t index = 0;
    while (index < inputs.size() && inputs[index].name != name) {
      names += " '" + inputs[index++].name + "'";
    }
    if (index == inputs.size()) {
      throw runtime::Error("the model has no input '" + name + "' (inputs:" + names + ")");
    }
    arrays[index] = runtime::LoadNpy(spec.substr(eq + 1));
  }
  return arrays;
}

// Checks the arrays given against `inputs` and fills the others with random data.
std::vector<runtime::NDArray> CompleteInputs(const std::vector<runtime::ExecTensor>& inputs,
                                             std::vector<runtime::NDArray> arrays) {
  for (size_t index = 0; index < inputs.size(); ++index) {
    const runtime::NDArray& value = arrays[index];
    const runtime::ExecTensor& info = inputs[index];
    if (value.defined() &&
        (value.Shape() != info.shape || runtime::operator!=(value.DataType(), info.dtype))) {
      throw runtime::Error(
          "input '" + info.name + "' expects " + runtime::DataTypeToString(info.dtype) +
          runtime::ShapeToString(info.shape) + ", got " +
          runtime::DataTypeToString(value.DataType()) + runtime::ShapeToString(value.Shape()));
    }
  }
  std::mt19937 rng(13);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!arrays[i].defined()) arrays[i] = RandomInput(inputs[i], rng);
  }
  return arrays;
}

}  // namespace

std::vector<runtime::NDArray> InputArrays(const std::vector<runtime::ExecTensor>& inputs,
                                          const std::vector<std::string>& specs) {
  return CompleteInputs(inputs, ReadInputFiles(inputs, specs));
}

void SetInputs(runtime::GraphExecutor& exec, const std::vector<std::string>& specs) {
  std::vector<runtime::ExecTensor> inputs;
  for (int i = 0; i < exec.NumInputs(); ++i) inputs.push_back(exec.InputInfo(i));
  std::vector<runtime::NDArray> arrays = InputArrays(inputs, specs);
  for (int i = 0; i < exec.NumInputs(); ++i) exec.SetInput(i, arrays[static_cast<size_t>(i)]);
}

void SetInputs(BatchRun& run, const std::vector<std::string>& specs, int64_t batch) {
  if (batch > 0 && !run.batched()) {
    throw runtime::Error("--batch " + std::to_string(batch) +
                         ", but the model has fixed shapes (compile it with --batch)");
  }
  if (!run.batched()) {
    run.SetInputs(InputArrays(run.InputsAt(0), specs));
    return;
  }
  std::vector<runtime::NDArray> arrays = ReadInputFiles(run.InputsAt(1), specs);
  const std::vector<int> axes = run.batch_axes();
  int64_t n = 0;
  for (size_t i = 0; i < arrays.size() && n == 0; ++i) {
    const int axis = axes[i];
    if (arrays[i].defined() && arrays[i].NDim() > axis) n = arrays[i].Shape()[axis];
  }
  if (n == 0) n = batch > 0 ? batch : run.buckets().front();
  if (batch > 0 && n != batch) {
    throw runtime::Error("--batch " + std::to_string(batch) + ", but the input files have batch " +
                         std::to_string(n));
  }
  // What the files give is checked by the run, which names the dimension that may vary.
  const std::vector<runtime::ExecTensor> inputs = run.InputsAt(n);
  std::vector<runtime::NDArray> random =
      CompleteInputs(inputs, std::vector<runtime::NDArray>(inputs.size()));
  for (size_t i = 0; i < arrays.size(); ++i) {
    if (!arrays[i].defined()) arrays[i] = random[i];
  }
  run.SetInputs(arrays);
}

void SaveOutputs(const BatchRun& run, const std::vector<std::string>& files) {
  if (files.size() > static_cast<size_t>(run.NumOutputs())) {
    throw runtime::Error("the model has " + std::to_string(run.NumOutputs()) + " outputs but " +
                         std::to_string(files.size()) + " --output files were given");
  }
  for (size_t i = 0; i < files.size(); ++i) {
    runtime::SaveNpy(files[i], run.GetOutput(static_cast<int>(i)));
  }
}

template <typename Runner>
Latency TimeRunsOf(Runner& runner, int repeat) {
  std::vector<double> ms;
  for (int r = 0; r < std::max(1, repeat); ++r) {
    auto start = std::chrono::steady_clock::now();
    runner.Run();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
  }
  return Summarize(std::move(ms));
}

Latency TimeRuns(runtime::GraphExecutor& exec, int repeat) { return TimeRunsOf(exec, repeat); }

Latency TimeRuns(BatchRun& run, int repeat) { return TimeRunsOf(run, repeat); }

Latency Summarize(std::vector<double> ms) {
  Latency l;
  if (ms.empty()) return l;
  for (double m : ms) l.mean_ms += m / static_cast<double>(ms.size());
  std::sort(ms.begin(), ms.end());
  l.median_ms = ms[ms.size() / 2];
  l.min_ms = ms.front();
  return l;
}

}  // namespace deploy
}  // namespace tessera
