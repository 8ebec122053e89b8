// The model C API over `deploy::LoadArtifact` and `runtime::GraphExecutor`: exceptions become
// -1 and the thread's last error.
#include "deploy/model_c_api.h"

#include <exception>
#include <string>

#include "deploy/artifact.h"
#include "runtime/data_type.h"
#include "runtime/error.h"

struct TesseraModel {
  tessera::deploy::LoadedModel loaded;
};

namespace {

template <typename F>
int Guard(F&& f) {
  try {
    f();
    return 0;
  } catch (const std::exception& e) {
    TesseraAPISetLastError(e.what());
  } catch (...) {
    TesseraAPISetLastError("unknown error");
  }
  return -1;
}

void CheckModel(TesseraModelHandle model, const char* function) {
  if (model == nullptr) throw tessera::runtime::Error(std::string(function) + ": null model");
}

void Info(const tessera::runtime::ExecTensor& t, const char** name, int* ndim,
          const int64_t** shape, size_t* nbytes) {
  if (name) *name = t.name.c_str();
  if (ndim) *ndim = static_cast<int>(t.shape.size());
  if (shape) *shape = t.shape.data();
  if (nbytes) {
    size_t n = (t.dtype.bits * t.dtype.lanes + 7) / 8;
    for (int64_t d : t.shape) n *= static_cast<size_t>(d);
    *nbytes = n;
  }
}

}  // namespace

int TesseraModelLoad(const char* path, TesseraModelHandle* out) {
  return Guard([&] {
    if (path == nullptr || out == nullptr) {
      throw tessera::runtime::Error("TesseraModelLoad: null argument");
    }
    *out = new TesseraModel{tessera::deploy::LoadArtifact(path)};
  });
}

int TesseraModelNumInputs(TesseraModelHandle model, int* out) {
  return Guard([&] {
    CheckModel(model, "TesseraModelNumInputs");
    *out = model->loaded.executor.NumInputs();
  });
}

int TesseraModelNumOutputs(TesseraModelHandle model, int* out) {
  return Guard([&] {
    CheckModel(model, "TesseraModelNumOutputs");
    *out = model->loaded.executor.NumOutputs();
  });
}

int TesseraModelInputInfo(TesseraModelHandle model, int index, const char** name, int* ndim,
                          const int64_t** shape, size_t* nbytes) {
  return Guard([&] {
    CheckModel(model, "TesseraModelInputInfo");
    Info(model->loaded.executor.InputInfo(index), name, ndim, shape, nbytes);
  });
}

int TesseraModelOutputInfo(TesseraModelHandle model, int index, const char** name, int* ndim,
                           const int64_t** shape, size_t* nbytes) {
  return Guard([&] {
    CheckModel(model, "TesseraModelOutputInfo");
    Info(model->loaded.executor.OutputInfo(index), name, ndim, shape, nbytes);
  });
}

int TesseraModelSetInput(TesseraModelHandle model, const char* name, const void* data,
                         size_t nbytes) {
  return Guard([&] {
    CheckModel(model, "TesseraModelSetInput");
    if (name == nullptr || data == nullptr) {
      throw tessera::runtime::Error("TesseraModelSetInput: null argument");
    }
    tessera::runtime::GraphExecutor& exec = model->loaded.executor;
    const tessera::runtime::ExecTensor& info = exec.InputInfo(exec.InputIndex(name));
    tessera::runtime::NDArray value =
        tessera::runtime::NDArray::Empty(info.shape, info.dtype, tessera::runtime::CPUDevice());
    value.CopyFromBytes(data, nbytes);
    exec.SetInput(name, value);
  });
}

int TesseraModelRun(TesseraModelHandle model) {
  return Guard([&] {
    CheckModel(model, "TesseraModelRun");
    // The pool is the process's: each run sizes it for its own model.
    tessera::deploy::UseModelThreads(model->loaded.header);
    model->loaded.executor.Run();
  });
}

int TesseraModelGetOutput(TesseraModelHandle model, int index, void* data, size_t nbytes) {
  return Guard([&] {
    CheckModel(model, "TesseraModelGetOutput");
    if (data == nullptr) throw tessera::runtime::Error("TesseraModelGetOutput: null data");
    model->loaded.executor.GetOutput(index).CopyToBytes(data, nbytes);
  });
}

int TesseraModelFree(TesseraModelHandle model) {
  delete model;
  return 0;
}
