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
#include "fleet/client/log_client.h"
#include "python/src/bindings.h"
#include "records/record_source.h"
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
                      const std::vector<std::string>& input_shapes, const std::string& token_file,
                      const std::string& tls_ca) {
  std::string artifact, coverage;
  std::ostringstream warnings;
  size_t kernel_calls = 0;
  {
    py::gil_scoped_release release;
    ForgetConfigNotices();
    frontend::OnnxImportOptions import = frontend::ImportOptionsWithShapes(input_shapes);
    import.notes = &warnings;  // a symbolic batch built as 1 is said in Module.warnings
    graph::Graph g = frontend::ImportOnnx(path, import);
    if (fleet::TrackerLogAddress(db).empty() && (!token_file.empty() || !tls_ca.empty())) {
      throw UserError("token_file and tls_ca go with db='tracker://HOST:PORT'");
    }
    const std::unique_ptr<records::RecordSource> log =
        fleet::OpenRecordSource(db, token_file, tls_ca);
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

py::tuple Signature(const runtime::ExecTensor& t) {
  return py::make_tuple(t.name, t.shape, NumpyName(t.dtype));
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

  // Runs the model on `feeds` (name -> NumPy array, NDArray or DLPack tensor) and returns the
  // outputs at `outputs` (indices) as new NumPy arrays.
  py::list Run(const py::dict& feeds, const std::vector<int>& outputs) {
    py::list out;
    for (const runtime::NDArray& r : Execute(feeds, outputs)) out.append(NumpyView(r));
    return out;
  }

  // As `Run`, returning NDArrays (DLPack tensors).
  py::list RunDLPack(const py::dict& feeds, const std::vector<int>& outputs) {
    py::list out;
    for (runtime::NDArray& r : Execute(feeds, outputs)) out.append(py::cast(std::move(r)));
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
      out.append(py::make_tuple(p.name, p.function, p.mean_ms, p.workload, p.source, p.flops));
    }
    return out;
  }

 private:
  // Sets every input from `feeds`, runs, and copies the outputs at `outputs` into new arrays.
  // The GIL is released while the model runs.
  std::vector<runtime::NDArray> Execute(const py::dict& feeds, const std::vector<int>& outputs) {
    runtime::GraphExecutor& exec = model_->executor;
    std::vector<std::pair<int, runtime::NDArray>> inputs;
    for (const auto& [key, value] : feeds) {
      const std::string name = py::str(key);
      int index = -1;
      for (int i = 0; i < exec.NumInputs(); ++i) {
        if (exec.InputInfo(i).name == name) index = i;
      }
      if (index < 0) throw py::value_error("unknown input '" + name + "'; " + InputList());
      inputs.emplace_back(index, InputArray(value, name, exec.InputInfo(index)));
    }
    for (int i = 0; i < exec.NumInputs(); ++i) {
      if (!feeds.contains(exec.InputInfo(i).name)) {
        throw py::value_error("input '" + exec.InputInfo(i).name + "' is missing; " + InputList());
      }
    }
    std::vector<runtime::NDArray> results;
    for (int o : outputs) {
      if (o < 0 || o >= exec.NumOutputs()) throw py::index_error("no output " + std::to_string(o));
      const runtime::ExecTensor& info = exec.OutputInfo(o);
      results.push_back(runtime::NDArray::Empty(info.shape, info.dtype, runtime::CPUDevice()));
    }
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(RunMutex());
      deploy::UseModelThreads(model_->header, threads_);
      for (const auto& [index, array] : inputs) exec.SetInput(index, array);
      exec.Run();
      for (size_t k = 0; k < outputs.size(); ++k) exec.GetOutput(outputs[k]).CopyTo(results[k]);
    }
    return results;
  }

  std::string InputList() const {
    std::string list = "the model's inputs:";
    for (int i = 0; i < model_->executor.NumInputs(); ++i) {
      const runtime::ExecTensor& t = model_->executor.InputInfo(i);
      list += " " + t.name + " " + NumpyName(t.dtype) + ShapeText(t.shape);
    }
    return list;
  }

  std::unique_ptr<deploy::LoadedModel> model_;
  int threads_;
};

}  // namespace

void BindModels(py::module_& m) {
  m.def("compile_model", &CompileModel, py::arg("path"), py::arg("target"), py::arg("db"),
        py::arg("input_shapes"), py::arg("token_file"), py::arg("tls_ca"),
        "Compiles the ONNX file at `path`; returns {artifact, coverage, warnings, kernel_calls}.");
  py::class_<Session>(m, "Session")
      .def(py::init<const std::string&, const std::string&, int>(), py::arg("artifact"),
           py::arg("source"), py::arg("threads"))
      .def("inputs", &Session::Inputs, "(name, shape, dtype) of every input, in order")
      .def("outputs", &Session::Outputs, "(name, shape, dtype) of every output, in order")
      .def_property_readonly("target", &Session::Target)
      .def("run", &Session::Run, py::arg("feeds"), py::arg("outputs"),
           "Runs the model on `feeds` (name -> array); returns the outputs at `outputs`.")
      .def("run_dlpack", &Session::RunDLPack, py::arg("feeds"), py::arg("outputs"),
           "As run, returning NDArrays.")
      .def("profile", &Session::Profile, py::arg("runs"),
           "(node, kernel, mean ms) of every kernel call, slowest first");
}

}  // namespace python
}  // namespace tessera
