// `compile_model` and `Session`: the C++ side of `tessera.compile`, `tessera.load` and
// `tessera.InferenceSession`. Arrays cross as NumPy arrays, checked here so that a wrong dtype,
// shape or layout is a ValueError naming the input.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "compiler/driver/build_model.h"
#include "compiler/driver/config_source.h"
#include "compiler/driver/model_artifact.h"
#include "compiler/driver/model_plan.h"
#include "compiler/frontend/onnx/onnx_importer.h"
#include "deploy/artifact.h"
#include "python/src/bindings.h"
#include "records/tuning_log.h"
#include "runtime/data_type.h"
#include "runtime/ndarray.h"
#include "tuner/tune/apply_history.h"

namespace py = pybind11;

namespace tessera {
namespace python {
namespace {

// Runs take this: the runtime's thread pool is one per process, sized for the model that runs.
std::mutex& RunMutex() {
  static std::mutex mutex;
  return mutex;
}

// The ONNX model at `path` compiled for `target` with the records of the tuning log `db` (empty:
// none): the artifact's bytes, the coverage line, the build's notices and its kernel calls.
py::dict CompileModel(const std::string& path, const std::string& target, const std::string& db,
                      const std::vector<std::string>& input_shapes) {
  std::string artifact, coverage;
  std::ostringstream warnings;
  size_t kernel_calls = 0;
  {
    py::gil_scoped_release release;
    ForgetConfigNotices();
    graph::Graph g = frontend::ImportOnnx(path, frontend::ImportOptionsWithShapes(input_shapes));
    std::unique_ptr<records::TuningLog> log;
    if (!db.empty()) log = records::TuningLog::Open(db, /*create=*/false);
    const tuner::LogConfigSource configs(log.get());
    ModelBuildOptions options;
    options.target = target;
    options.configs = &configs;
    options.warnings = &warnings;
    const ModelBuild build = EmitModel(PlanModel(std::move(g), options), options);
    artifact = deploy::SerializeArtifact(MakeArtifact(build, target));
    coverage = build.CoverageLine();
    kernel_calls = build.graph.nodes.size();
  }
  py::dict out;
  out["artifact"] = py::bytes(artifact);
  out["coverage"] = coverage;
  out["warnings"] = warnings.str();
  out["kernel_calls"] = kernel_calls;
  return out;
}

// NumPy's name of a tensor type ("float32", "int64", "bool").
std::string NumpyName(DLDataType dtype) {
  const std::string name = runtime::DataTypeToString(dtype);
  return name == "uint1" ? "bool" : name;
}

py::tuple Signature(const runtime::ExecTensor& t) {
  return py::make_tuple(t.name, t.shape, NumpyName(t.dtype));
}

// A tensor over `array`'s memory, no copy; `array` must outlive it.
runtime::NDArray ViewOf(const py::array& array, DLDataType dtype) {
  struct View {
    DLManagedTensor tensor;
    std::vector<int64_t> shape;
  };
  auto* view = new View;
  view->shape.assign(array.shape(), array.shape() + array.ndim());
  DLTensor& t = view->tensor.dl_tensor;
  t.data = const_cast<void*>(array.data());
  t.device = runtime::CPUDevice();
  t.ndim = static_cast<int32_t>(array.ndim());
  t.dtype = dtype;
  t.shape = view->shape.data();
  t.strides = nullptr;
  t.byte_offset = 0;
  view->tensor.manager_ctx = view;
  view->tensor.deleter = [](DLManagedTensor* self) {
    delete static_cast<View*>(self->manager_ctx);
  };
  return runtime::NDArray::FromDLPack(&view->tensor);
}

// A loaded artifact and the runs made on it.
class Session {
 public:
  Session(const std::string& artifact, const std::string& source, int threads)
      : model_(std::make_unique<deploy::LoadedModel>(deploy::LoadArtifactBytes(artifact, source))),
        threads_(threads) {}

  py::list Inputs() const {
    py::list out;
    for (int i = 0; i < model_->executor.NumInputs(); ++i) {
      out.append(Signature(model_->executor.InputInfo(i)));
    }
    return out;
  }

  py::list Outputs() const {
    py::list out;
    for (int i = 0; i < model_->executor.NumOutputs(); ++i) {
      out.append(Signature(model_->executor.OutputInfo(i)));
    }
    return out;
  }

  std::string Target() const { return model_->header.target; }

  // Sets every input from `feeds` (name -> array), runs, and returns the outputs of `outputs`
  // (indices) as new arrays. The GIL is released while the model runs.
  py::list Run(const py::dict& feeds, const std::vector<int>& outputs) {
    runtime::GraphExecutor& exec = model_->executor;
    std::vector<std::pair<int, runtime::NDArray>> inputs;
    std::vector<py::array> held;  // the arrays the views read
    for (const auto& [key, value] : feeds) {
      const std::string name = py::str(key);
      int index = -1;
      for (int i = 0; i < exec.NumInputs(); ++i) {
        if (exec.InputInfo(i).name == name) index = i;
      }
      if (index < 0) throw py::value_error("unknown input '" + name + "'; " + InputList());
      const runtime::ExecTensor& info = exec.InputInfo(index);
      if (!py::isinstance<py::array>(value)) {
        throw py::value_error("input '" + name + "': expected a numpy array of " +
                              NumpyName(info.dtype) + ", got " +
                              std::string(py::str(py::type::of(value).attr("__name__"))));
      }
      py::array array = py::reinterpret_borrow<py::array>(value);
      const std::string dtype = py::str(array.dtype().attr("name"));
      if (dtype != NumpyName(info.dtype)) {
        throw py::value_error("input '" + name + "': expected dtype " + NumpyName(info.dtype) +
                              ", got " + dtype);
      }
      const std::vector<int64_t> shape(array.shape(), array.shape() + array.ndim());
      if (shape != info.shape) {
        throw py::value_error("input '" + name + "': expected shape " + ShapeText(info.shape) +
                              ", got " + ShapeText(shape));
      }
      if (!(array.flags() & py::array::c_style)) {
        throw py::value_error("input '" + name +
                              "': the array is not C-contiguous; pass "
                              "numpy.ascontiguousarray(array)");
      }
      inputs.emplace_back(index, ViewOf(array, info.dtype));
      held.push_back(std::move(array));
    }
    if (static_cast<int>(inputs.size()) != exec.NumInputs()) {
      for (int i = 0; i < exec.NumInputs(); ++i) {
        if (!feeds.contains(exec.InputInfo(i).name)) {
          throw py::value_error("input '" + exec.InputInfo(i).name + "' is missing; " +
                                InputList());
        }
      }
    }
    std::vector<py::array> results;
    for (int o : outputs) {
      if (o < 0 || o >= exec.NumOutputs()) throw py::index_error("no output " + std::to_string(o));
      const runtime::ExecTensor& info = exec.OutputInfo(o);
      results.emplace_back(py::dtype(NumpyName(info.dtype)), info.shape);
    }
    std::vector<std::pair<void*, size_t>> destinations;
    for (py::array& r : results) destinations.emplace_back(r.mutable_data(), r.nbytes());
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(RunMutex());
      deploy::UseModelThreads(model_->header, threads_);
      for (const auto& [index, view] : inputs) exec.SetInput(index, view);
      exec.Run();
      for (size_t k = 0; k < outputs.size(); ++k) {
        exec.GetOutput(outputs[k]).CopyToBytes(destinations[k].first, destinations[k].second);
      }
    }
    py::list out;
    for (py::array& r : results) out.append(std::move(r));
    return out;
  }

  // Per-kernel times over `runs` runs on the inputs last set, slowest first.
  py::list Profile(int runs) {
    std::vector<runtime::NodeProfile> profile;
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(RunMutex());
      deploy::UseModelThreads(model_->header, threads_);
      profile = model_->executor.Profile(runs);
    }
    py::list out;
    for (const runtime::NodeProfile& p : profile) {
      out.append(py::make_tuple(p.name, p.function, p.mean_ms));
    }
    return out;
  }

 private:
  std::string InputList() const {
    std::string list = "the model's inputs:";
    for (int i = 0; i < model_->executor.NumInputs(); ++i) {
      const runtime::ExecTensor& t = model_->executor.InputInfo(i);
      list += " " + t.name + " " + NumpyName(t.dtype) + ShapeText(t.shape);
    }
    return list;
  }

  static std::string ShapeText(const std::vector<int64_t>& shape) {
    std::string text = "(";
    for (size_t i = 0; i < shape.size(); ++i) {
      text += (i ? ", " : "") + std::to_string(shape[i]);
    }
    return text + (shape.size() == 1 ? ",)" : ")");
  }

  std::unique_ptr<deploy::LoadedModel> model_;
  int threads_;
};

}  // namespace

void BindModels(py::module_& m) {
  m.def("compile_model", &CompileModel, py::arg("path"), py::arg("target"), py::arg("db"),
        py::arg("input_shapes"),
        "Compiles the ONNX file at `path`; returns {artifact, coverage, warnings, kernel_calls}.");
  py::class_<Session>(m, "Session")
      .def(py::init<const std::string&, const std::string&, int>(), py::arg("artifact"),
           py::arg("source"), py::arg("threads"))
      .def("inputs", &Session::Inputs, "(name, shape, dtype) of every input, in order")
      .def("outputs", &Session::Outputs, "(name, shape, dtype) of every output, in order")
      .def_property_readonly("target", &Session::Target)
      .def("run", &Session::Run, py::arg("feeds"), py::arg("outputs"),
           "Runs the model on `feeds` (name -> array); returns the outputs at `outputs`.")
      .def("profile", &Session::Profile, py::arg("runs"),
           "(node, kernel, mean ms) of every kernel call, slowest first");
}

}  // namespace python
}  // namespace tessera
