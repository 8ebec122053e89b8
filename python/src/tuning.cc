// `tune_model` and `tune_task`: `tessera tune` from Python. Tuning runs with the GIL released;
// after every batch (whose records are already in the log) the progress callback runs with the
// GIL held, and a pending Ctrl-C ends the run there, every record measured so far kept.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "fleet/secrets.h"
#include "python/src/bindings.h"
#include "records/tuning_log.h"
#include "tuner/measure/device_arch.h"
#include "tuner/measure/task_measure.h"
#include "tuner/tune/model_tasks.h"
#include "tuner/tune/tune_check.h"
#include "tuner/tune/tune_model.h"
#include "tuner/tune/tune_task.h"

namespace py = pybind11;

namespace tessera {
namespace python {
namespace {

// Thrown through the tuner by a progress callback that found Python's error indicator set (a
// KeyboardInterrupt, or an exception of the callback): the run stops, the error is Python's.
struct PythonErrorPending {};

// Calls `fn` with the GIL held; a Python error it raises, or a pending signal, stops the run.
template <typename Fn>
void InPython(const Fn& fn) {
  py::gil_scoped_acquire gil;
  try {
    fn();
  } catch (py::error_already_set& e) {
    e.restore();
    throw PythonErrorPending{};
  }
  if (PyErr_CheckSignals() != 0) throw PythonErrorPending{};
}

// What the tuning options say, as `tessera tune`'s flags set them.
struct TuneArgs {
  std::string target, db, tuner, rpc_tracker, rpc_key, token_file;
  std::string cold_weights = "auto";  // auto, on or off, as `tessera tune --cold-weights`
  int64_t trials = 0;
  int number = 0, repeat = 0;
};

tuner::TuneTaskOptions TaskOptions(const TuneArgs& args) {
  if (args.rpc_tracker.empty() != args.rpc_key.empty()) {
    throw UserError(
        "tune: rpc_tracker and rpc_key go together (measure on fleet devices of that key); leave "
        "both out to measure on this machine");
  }
  // A model's tasks decide for themselves (ApplyColdWeights); one task is cold only when asked.
  const bool cold_weights = tuner::ColdWeightsOfTask(args.cold_weights);
  tuner::CheckTarget(args.target);
  if (args.rpc_tracker.empty()) tuner::CheckRunsOnThisHost(args.target);
  tuner::TuneTaskOptions options;
  options.measure.build_timeout_s = 60;
  options.measure.run_timeout_s = 30;
  options.trials = args.trials;
  options.tuner = args.tuner;
  if (args.number > 0) options.run.number = args.number;
  if (args.repeat > 0) options.run.repeat = args.repeat;
  options.run.cold_weights = cold_weights;
  options.rpc_tracker = args.rpc_tracker;
  options.rpc_key = args.rpc_key;
  if (!args.token_file.empty()) options.rpc_token = fleet::ReadTokenFile(args.token_file);
  return options;
}

py::object Seconds(double s) { return std::isfinite(s) ? py::object(py::float_(s)) : py::none(); }

// The end-of-tuning check as a dict: the two latencies, the estimate against the template
// kernels, the configs kept, and the report `tessera tune` prints.
py::dict CheckDict(const tuner::TuneCheck& check) {
  py::dict out;
  out["threads"] = check.threads;
  out["tuned_ms"] = check.tuned_ms;
  out["untuned_ms"] = check.untuned_ms;
  out["template_ms"] = check.template_ms;
  out["estimated_part_ms"] = check.estimated_part_ms;
  out["unestimated_kernels"] = check.unestimated_kernels;
  out["estimated_ms"] =
      std::isfinite(check.estimated_ms) ? py::object(py::float_(check.estimated_ms)) : py::none();
  py::list kept;
  for (const tuner::KeptChoice& choice : check.kept) {
    kept.append(py::make_tuple(choice.tuned.workload_key(), choice.untuned.workload_key()));
  }
  out["kept"] = kept;
  out["kept_ms"] = check.kept_ms > 0 ? py::object(py::float_(check.kept_ms)) : py::none();
  std::ostringstream report;
  tuner::PrintTuneCheck(check, report);
  out["report"] = report.str();
  return out;
}

py::dict TuneModelFile(const std::string& path, const std::vector<std::string>& input_shapes,
                       const TuneArgs& args, const py::object& progress, bool check,
                       const tuner::BatchBuckets& given_buckets) {
  tuner::TuneModelOptions options;
  options.task = TaskOptions(args);
  options.trials = args.trials;
  const tuner::BatchBuckets buckets = tuner::CheckedBatchBuckets(given_buckets);
  std::vector<ModelTask> tasks;
  tuner::TuneModelResult result;
  std::vector<std::pair<int64_t, tuner::TuneCheck>> checked;  // (batch or 0, its check)
  {
    py::gil_scoped_release release;
    tasks = tuner::ExtractModelTasks(path, input_shapes, args.target, buckets);
    if (tasks.empty()) throw UserError(path + ": the model has no tunable task");
    tuner::ApplyColdWeights(args.cold_weights, &tasks);
    auto log = records::TuningLog::Open(args.db);
    try {
      result = tuner::TuneModel(
          tasks, args.target, log.get(), options, [&](const tuner::TuneModelProgress& p) {
            if (progress.is_none()) return;
            InPython([&] {
              progress(p.trials, p.budget, p.task, tasks[p.task].workload_key, p.estimated,
                       p.measured_tasks, static_cast<int>(tasks.size()));
            });
          });
    } catch (const PythonErrorPending&) {
      py::gil_scoped_acquire gil;
      throw py::error_already_set();
    }
    // Where the records describe this machine: the build with them against the build without,
    // at each batch bucket.
    if (check && args.rpc_tracker.empty()) {
      tuner::TuneCheckOptions model;
      model.model = path;
      model.input_shapes = input_shapes;
      model.target = args.target;
      model.batch_dim = buckets.dim;
      model.estimated_s = result.estimated;
      model.estimated_workloads = result.estimated_workloads;
      for (const tuner::TuneCheckOptions& build : tuner::BuildsToCheck(model, buckets.sizes)) {
        checked.emplace_back(build.batch, tuner::CheckAndKeep(build, log.get()));
      }
    }
  }
  py::list out_tasks;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const tuner::TunedTaskSummary& s = result.tasks[i];
    py::dict t;
    t["workload_key"] = tasks[i].workload_key;
    t["weight"] = tasks[i].weight;
    t["trials"] = s.trials;
    t["measured"] = s.measured;
    t["best_seconds"] = Seconds(s.best);
    t["state"] = s.stalled ? "stalled" : s.exhausted ? "exhausted" : "";
    out_tasks.append(t);
  }
  py::dict out;
  out["tasks"] = out_tasks;
  out["measured"] = result.measured;
  out["estimated_seconds"] = Seconds(result.estimated);
  out["stalled"] = result.stalled;
  out["check"] = !checked.empty() && checked[0].first == 0
                     ? py::object(CheckDict(checked[0].second))
                     : py::none();
  py::dict checks;
  for (const auto& [batch, one] : checked) {
    if (batch > 0) checks[py::int_(batch)] = CheckDict(one);
  }
  out["checks"] = checks;
  return out;
}

py::dict TuneOneTask(const std::string& workload_key, const TuneArgs& args,
                     const py::object& progress) {
  const tuner::TuneTaskOptions options = TaskOptions(args);
  const task::Task task(workload_key, args.target);
  tuner::TuneTaskResult result;
  {
    py::gil_scoped_release release;
    auto log = records::TuningLog::Open(args.db);
    try {
      result =
          tuner::TuneTask(task, log.get(), options, [&](const tuner::TuneProgress& p, const auto&) {
            if (progress.is_none()) return;
            InPython([&] {
              progress(p.trials, p.planned, 0, workload_key, p.best_cost,
                       p.best_cost > 0 && std::isfinite(p.best_cost) ? 1 : 0, 1);
            });
          });
    } catch (const PythonErrorPending&) {
      py::gil_scoped_acquire gil;
      throw py::error_already_set();
    }
  }
  py::dict out;
  out["workload_key"] = workload_key;
  out["measured"] = result.search.trials;
  out["failures"] = result.search.failures;
  out["resumed"] = result.resumed;
  out["best_seconds"] = result.search.best ? Seconds(result.search.best->outcome.cost) : py::none();
  out["best_config"] =
      result.search.best ? py::object(py::str(result.search.best->config.ToString())) : py::none();
  return out;
}

}  // namespace

void BindTuning(py::module_& m) {
  auto args = [](const std::string& target, const std::string& db, int64_t trials,
                 const std::string& tuner, int number, int repeat, const std::string& rpc_tracker,
                 const std::string& rpc_key, const std::string& token_file,
                 const std::string& cold_weights) {
    TuneArgs a;
    a.cold_weights = cold_weights;
    a.target = target;
    a.db = db;
    a.trials = trials;
    a.tuner = tuner;
    a.number = number;
    a.repeat = repeat;
    a.rpc_tracker = rpc_tracker;
    a.rpc_key = rpc_key;
    a.token_file = token_file;
    return a;
  };
  m.def(
      "tune_model",
      [args](const std::string& path, const std::vector<std::string>& input_shapes,
             const std::string& target, const std::string& db, int64_t trials,
             const std::string& tuner, int number, int repeat, const std::string& rpc_tracker,
             const std::string& rpc_key, const std::string& token_file, const py::object& progress,
             bool check, const std::string& cold_weights, const std::vector<int64_t>& batch_buckets,
             const std::vector<int>& batch_weights, const std::string& batch_dim) {
        return TuneModelFile(path, input_shapes,
                             args(target, db, trials, tuner, number, repeat, rpc_tracker, rpc_key,
                                  token_file, cold_weights),
                             progress, check, {batch_buckets, batch_weights, batch_dim});
      },
      py::arg("path"), py::arg("input_shapes"), py::arg("target"), py::arg("db"), py::arg("trials"),
      py::arg("tuner"), py::arg("number"), py::arg("repeat"), py::arg("rpc_tracker"),
      py::arg("rpc_key"), py::arg("token_file"), py::arg("progress"), py::arg("check"),
      py::arg("cold_weights"), py::arg("batch_buckets"), py::arg("batch_weights"),
      py::arg("batch_dim"));
  m.def(
      "tune_task",
      [args](const std::string& workload_key, const std::string& target, const std::string& db,
             int64_t trials, const std::string& tuner, int number, int repeat,
             const std::string& rpc_tracker, const std::string& rpc_key,
             const std::string& token_file, const py::object& progress,
             const std::string& cold_weights) {
        return TuneOneTask(workload_key,
                           args(target, db, trials, tuner, number, repeat, rpc_tracker, rpc_key,
                                token_file, cold_weights),
                           progress);
      },
      py::arg("workload_key"), py::arg("target"), py::arg("db"), py::arg("trials"),
      py::arg("tuner"), py::arg("number"), py::arg("repeat"), py::arg("rpc_tracker"),
      py::arg("rpc_key"), py::arg("token_file"), py::arg("progress"), py::arg("cold_weights"));
}

}  // namespace python
}  // namespace tessera
