// The model C API over `deploy::LoadArtifact` and `deploy::BatchRun`: exceptions become -1 and
// the thread's last error.
#include "deploy/model_c_api.h"

#include <exception>
#include <string>
#include <vector>

#include "deploy/artifact.h"
#include "deploy/batch_run.h"
#include "runtime/data_type.h"
#include "runtime/error.h"

struct TesseraModel {
  explicit TesseraModel(tessera::deploy::LoadedModel model)
      : loaded(std::move(model)), run(loaded) {
    SetBatch(run.batched() ? run.buckets().front() : 0);
  }
  // The batch the next inputs, run and outputs have (a model of batch buckets).
  void SetBatch(int64_t n) {
    inputs = run.InputsAt(n);
    outputs = run.OutputsAt(n);
    staged.clear();
    if (!run.batched()) return;
    for (const tessera::runtime::ExecTensor& t : inputs) {
      staged.push_back(
          tessera::runtime::NDArray::Empty(t.shape, t.dtype, tessera::runtime::CPUDevice()));
    }
  }
  tessera::deploy::LoadedModel loaded;
  tessera::deploy::BatchRun run;
  std::vector<tessera::runtime::ExecTensor> inputs, outputs;  // at the batch set
  std::vector<tessera::runtime::NDArray> staged;  // a model of batch buckets: its inputs
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
    *out = new TesseraModel(tessera::deploy::LoadArtifact(path));
  });
}

int TesseraModelBatchBuckets(TesseraModelHandle model, int* count, const int64_t** buckets) {
  return Guard([&] {
    CheckModel(model, "TesseraModelBatchBuckets");
    if (count) *count = static_cast<int>(model->run.buckets().size());
    if (buckets) *buckets = model->run.buckets().data();
  });
}

int TesseraModelSetBatch(TesseraModelHandle model, int64_t batch) {
  return Guard([&] {
    CheckModel(model, "TesseraModelSetBatch");
    if (!model->run.batched()) {
      throw tessera::runtime::Error(
          "TesseraModelSetBatch: the model has fixed shapes (compile it with --batch)");
    }
    if (batch < 1) {
      throw tessera::runtime::Error("TesseraModelSetBatch: batch " + std::to_string(batch) +
                                    " is not positive");
    }
    model->SetBatch(batch);
  });
}

int TesseraModelNumInputs(TesseraModelHandle model, int* out) {
  return Guard([&] {
    CheckModel(model, "TesseraModelNumInputs");
    *out = model->run.NumInputs();
  });
}

int TesseraModelNumOutputs(TesseraModelHandle model, int* out) {
  return Guard([&] {
    CheckModel(model, "TesseraModelNumOutputs");
    *out = model->run.NumOutputs();
  });
}

int TesseraModelInputInfo(TesseraModelHandle model, int index, const char** name, int* ndim,
                          const int64_t** shape, size_t* nbytes) {
  return Guard([&] {
    CheckModel(model, "TesseraModelInputInfo");
    Info(model->inputs.at(static_cast<size_t>(index)), name, ndim, shape, nbytes);
  });
}

int TesseraModelOutputInfo(TesseraModelHandle model, int index, const char** name, int* ndim,
                           const int64_t** shape, size_t* nbytes) {
  return Guard([&] {
    CheckModel(model, "TesseraModelOutputInfo");
    Info(model->outputs.at(static_cast<size_t>(index)), name, ndim, shape, nbytes);
  });
}

int TesseraModelSetInput(TesseraModelHandle model, const char* name, const void* data,
                         size_t nbytes) {
  return Guard([&] {
    CheckModel(model, "TesseraModelSetInput");
    if (name == nullptr || data == nullptr) {
      throw tessera::runtime::Error("TesseraModelSetInput: null argument");
    }
    // Every bucket has the same inputs, in the same order.
    const int index = model->loaded.executor.InputIndex(name);
    if (model->run.batched()) {
      model->staged[static_cast<size_t>(index)].CopyFromBytes(data, nbytes);
      return;
    }
    tessera::runtime::GraphExecutor& exec = model->loaded.executor;
    const tessera::runtime::ExecTensor& info = exec.InputInfo(index);
    tessera::runtime::NDArray value =
        tessera::runtime::NDArray::Empty(info.shape, info.dtype, tessera::runtime::CPUDevice());
    value.CopyFromBytes(data, nbytes);
    exec.SetInput(index, value);
  });
}

int TesseraModelRun(TesseraModelHandle model) {
  return Guard([&] {
    CheckModel(model, "TesseraModelRun");
    // The pool is the process's: each run sizes it for its own model.
    tessera::deploy::UseModelThreads(model->loaded.header);
    if (model->run.batched()) model->run.SetInputs(model->staged);
    model->run.Run();
  });
}

int TesseraModelGetOutput(TesseraModelHandle model, int index, void* data, size_t nbytes) {
  return Guard([&] {
    CheckModel(model, "TesseraModelGetOutput");
    if (data == nullptr) throw tessera::runtime::Error("TesseraModelGetOutput: null data");
    model->run.GetOutput(index).CopyToBytes(data, nbytes);
  });
}

int TesseraModelFree(TesseraModelHandle model) {
  delete model;
  return 0;
}
