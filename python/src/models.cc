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

#include "compiler/driver/bucket_build.h"
#include "compiler/driver/build_model.h"
#include "compiler/driver/config_source.h"
#include "compiler/driver/model_artifact.h"
#include "compiler/driver/model_plan.h"
#include "compiler/frontend/onnx/onnx_importer.h"
#include "deploy/artifact.h"
#include "deploy/batch_run.h"
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
                      const std::string& tls_ca, const std::vector<int64_t>& batch,
                      const std::string& batch_dim) {
  std::string artifact, coverage;
  std::ostringstream warnings;
  size_t kernel_calls = 0;
  {
    py::gil_scoped_release release;
    ForgetConfigNotices();
    frontend::OnnxImportOptions import = frontend::ImportOptionsWithShapes(input_shapes);
    import.notes = &warnings;  // a symbolic batch built as 1 is said in Module.warnings
    import.batch_dim = batch_dim;
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
    if (batch.empty()) {
      TESSERA_USER_CHECK(batch_dim.empty()) << "batch_dim names the dimension batch= sets";
      const ModelBuild build =
          EmitModel(PlanModel(frontend::ImportOnnx(path, import), options), options);
      artifact = deploy::SerializeArtifact(MakeArtifact(build, target));
      coverage = build.CoverageLine();
      kernel_calls = build.graph.nodes.size();
    } else {
      const BucketedBuild buckets = BuildBuckets(path, import, batch, options);
      artifact = deploy::SerializeArtifact(buckets.MakeArtifact(target));
      for (size_t b = 0; b < buckets.batches.size(); ++b) {
        coverage += (b ? "\n" : "") + std::string("batch ") + std::to_string(buckets.batches[b]) +
                    ": " + buckets.builds[b].CoverageLine();
        kernel_calls += buckets.builds[b].graph.nodes.size();
      }
    }
  }
  py::dict out;
  out["artifact"] = py::bytes(artifact);
  out["coverage"] = coverage;
  out["warnings"] = warnings.str();
  out["kernel_calls"] = kernel_calls;
  return out;
}

// (name, shape, dtype); the batch dimension of a model of batch buckets is "N".
py::tuple Signature(const runtime::ExecTensor& t, int batch_axis = -1) {
  py::list shape;
  for (size_t d = 0; d < t.shape.size(); ++d) {
    if (static_cast<int>(d) == batch_axis) {
      shape.append("N");
    } else {
      shape.append(t.shape[d]);
    }
  }
  return py::make_tuple(t.name, shape, NumpyName(t.dtype));
}

// A loaded artifact and the runs made on it.
class Session {
 public:
  Session(const std::string& artifact, const std::string& source, int threads)
      : model_(std::make_unique<deploy::LoadedModel>(deploy::LoadArtifactBytes(artifact, source))),
        run_(std::make_unique<deploy::BatchRun>(*model_)),
        threads_(threads) {}

  py::list Inputs() const {
    py::list out;
    const auto at = run_->InputsAt(1);
    for (size_t i = 0; i < at.size(); ++i) {
      out.append(Signature(at[i], run_->batched() ? model_->header.inputs[i].batch_axis : -1));
    }
    return out;
  }

  py::list Outputs() const {
    py::list out;
    const auto at = run_->OutputsAt(1);
    for (size_t i = 0; i < at.size(); ++i) {
      out.append(Signature(at[i], run_->batched() ? model_->header.outputs[i].batch_axis : -1));
    }
    return out;
  }

  std::vector<int64_t> Buckets() const { return run_->buckets(); }

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
      profile = run_->executor().Profile(runs);
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
    const std::vector<runtime::ExecTensor> names = run_->InputsAt(1);
    std::vector<int> index_of;
    for (const auto& [key, value] : feeds) {
      const std::string name = py::str(key);
      int index = -1;
      for (size_t i = 0; i < names.size(); ++i) {
        if (names[i].name == name) index = static_cast<int>(i);
      }
      if (index < 0) throw py::value_error("unknown input '" + name + "'; " + InputList());
      index_of.push_back(index);
    }
    for (const runtime::ExecTensor& t : names) {
      if (!feeds.contains(t.name)) {
        throw py::value_error("input '" + t.name + "' is missing; " + InputList());
      }
    }
    // A model of batch buckets runs the batch of the first input fed.
    int64_t batch = run_->batched() ? run_->buckets().front() : 0;
    if (run_->batched() && !index_of.empty()) {
      const py::object first = feeds.begin()->second.cast<py::object>();
      const int axis = run_->batch_axes()[static_cast<size_t>(index_of[0])];
      const py::tuple shape = py::getattr(first, "shape", py::tuple()).cast<py::tuple>();
      if (axis < static_cast<int>(shape.size()))
        batch = shape[static_cast<size_t>(axis)].cast<int64_t>();
    }
    const std::vector<runtime::ExecTensor> inputs = run_->InputsAt(batch);
    std::vector<runtime::NDArray> arrays(inputs.size());
    size_t k = 0;
    for (const auto& [key, value] : feeds) {
      const int index = index_of[k++];
      arrays[static_cast<size_t>(index)] = InputArray(
          value, inputs[static_cast<size_t>(index)].name, inputs[static_cast<size_t>(index)]);
    }
    const std::vector<runtime::ExecTensor> output_info = run_->OutputsAt(batch);
    std::vector<runtime::NDArray> results;
    for (int o : outputs) {
      if (o < 0 || o >= run_->NumOutputs()) throw py::index_error("no output " + std::to_string(o));
      const runtime::ExecTensor& info = output_info[static_cast<size_t>(o)];
      results.push_back(runtime::NDArray::Empty(info.shape, info.dtype, runtime::CPUDevice()));
    }
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(RunMutex());
      deploy::UseModelThreads(model_->header, threads_);
      run_->SetInputs(arrays);
      run_->Run();
      for (size_t r = 0; r < outputs.size(); ++r) run_->GetOutput(outputs[r]).CopyTo(results[r]);
    }
    return results;
  }

  std::string InputList() const {
    std::string list = "the model's inputs:";
    const std::vector<runtime::ExecTensor> inputs = run_->InputsAt(1);
    const std::vector<int> axes = run_->batch_axes();
    for (size_t i = 0; i < inputs.size(); ++i) {
      const runtime::ExecTensor& t = inputs[i];
      std::string shape = ShapeText(t.shape);
      if (run_->batched()) shape += " (any batch in dimension " + std::to_string(axes[i]) + ")";
      list += " " + t.name + " " + NumpyName(t.dtype) + shape;
    }
    return list;
  }

  std::unique_ptr<deploy::LoadedModel> model_;
  std::unique_ptr<deploy::BatchRun> run_;  // runs model_
  int threads_;
};

}  // namespace

void BindModels(py::module_& m) {
  m.def("compile_model", &CompileModel, py::arg("path"), py::arg("target"), py::arg("db"),
        py::arg("input_shapes"), py::arg("token_file"), py::arg("tls_ca"), py::arg("batch"),
        py::arg("batch_dim"),
        "Compiles the ONNX file at `path`; returns {artifact, coverage, warnings, kernel_calls}.");
  py::class_<Session>(m, "Session")
      .def(py::init<const std::string&, const std::string&, int>(), py::arg("artifact"),
           py::arg("source"), py::arg("threads"))
      .def("inputs", &Session::Inputs, "(name, shape, dtype) of every input, in order")
      .def("outputs", &Session::Outputs, "(name, shape, dtype) of every output, in order")
      .def_property_readonly("target", &Session::Target)
      .def_property_readonly("batch_buckets", &Session::Buckets,
                             "the batch sizes of a model compiled with batch buckets (else [])")
      .def("run", &Session::Run, py::arg("feeds"), py::arg("outputs"),
           "Runs the model on `feeds` (name -> array); returns the outputs at `outputs`.")
      .def("run_dlpack", &Session::RunDLPack, py::arg("feeds"), py::arg("outputs"),
           "As run, returning NDArrays.")
      .def("profile", &Session::Profile, py::arg("runs"),
           "(node, kernel, mean ms) of every kernel call, slowest first");
}

}  // namespace python
}  // namespace tessera
