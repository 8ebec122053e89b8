#include "deploy/run_model.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <random>

#include "deploy/artifact.h"
#include "runtime/data_type.h"
#include "runtime/error.h"
#include "runtime/npy.h"

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

runtime::GraphExecutor LoadModel(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return runtime::GraphExecutor::LoadFromDirectory(path);
  }
  return LoadArtifact(path).executor;
}

void SetInputs(runtime::GraphExecutor& exec, const std::vector<std::string>& specs) {
  std::vector<bool> given(static_cast<size_t>(exec.NumInputs()), false);
  for (const std::string& spec : specs) {
    size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw runtime::Error("--input '" + spec + "' is not NAME=file.npy");
    }
    int index = exec.InputIndex(spec.substr(0, eq));
    exec.SetInput(index, runtime::LoadNpy(spec.substr(eq + 1)));
    given[static_cast<size_t>(index)] = true;
  }
  std::mt19937 rng(13);
  for (int i = 0; i < exec.NumInputs(); ++i) {
    if (!given[static_cast<size_t>(i)]) exec.SetInput(i, RandomInput(exec.InputInfo(i), rng));
  }
}

void SaveOutputs(const runtime::GraphExecutor& exec, const std::vector<std::string>& files) {
  if (files.size() > static_cast<size_t>(exec.NumOutputs())) {
    throw runtime::Error("the model has " + std::to_string(exec.NumOutputs()) + " outputs but " +
                         std::to_string(files.size()) + " --output files were given");
  }
  for (size_t i = 0; i < files.size(); ++i) {
    runtime::SaveNpy(files[i], exec.GetOutput(static_cast<int>(i)));
  }
}

Latency TimeRuns(runtime::GraphExecutor& exec, int repeat) {
  std::vector<double> ms;
  for (int r = 0; r < std::max(1, repeat); ++r) {
    auto start = std::chrono::steady_clock::now();
    exec.Run();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
  }
  Latency l;
  for (double m : ms) l.mean_ms += m / static_cast<double>(ms.size());
  std::sort(ms.begin(), ms.end());
  l.median_ms = ms[ms.size() / 2];
  l.min_ms = ms.front();
  return l;
}

}  // namespace deploy
}  // namespace tessera
