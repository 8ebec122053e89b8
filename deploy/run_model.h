/// \file
/// Running a compiled model from a command line: load an artifact or a model directory, fill the
/// inputs from .npy files (random data where none is given), save the outputs, time runs. Shared
/// by `tessera run` and the runtime-only `tessera-run`, so both produce the same outputs.
#ifndef TESSERA_DEPLOY_RUN_MODEL_H_
#define TESSERA_DEPLOY_RUN_MODEL_H_

#include <string>
#include <vector>

#include "deploy/artifact.h"
#include "deploy/batch_run.h"
#include "runtime/graph_executor.h"

namespace tessera {
namespace deploy {

/// Loads `path`: an artifact file (`deploy/artifact.h`, every check applied) or a compiled model
/// directory (whose header is empty: a directory records no target). Throws `runtime::Error`
/// naming the path.
LoadedModel LoadModel(const std::string& path);

/// The arrays of a model's `inputs`, in order: those named by `specs` ("NAME=file.npy") from
/// their files, the others the same random data every time (uniform in [-1, 1) for float32, zeros
/// otherwise). Throws `runtime::Error` for a malformed spec, an unknown input or a file of the
/// wrong shape or dtype. What `SetInputs` sets, for a model that runs elsewhere.
std::vector<runtime::NDArray> InputArrays(const std::vector<runtime::ExecTensor>& inputs,
                                          const std::vector<std::string>& specs);

/// Sets the inputs named by `specs` ("NAME=file.npy") and fills the others with the same random
/// data every time (uniform in [-1, 1) for float32, zeros otherwise). Throws `runtime::Error` for
/// a malformed spec, an unknown input or a file of the wrong shape or dtype.
void SetInputs(runtime::GraphExecutor& exec, const std::vector<std::string>& specs);

/// Sets the inputs of `run` as `SetInputs` above. A model of batch buckets takes them at the batch
/// the files give (every file the same), else at `batch`, else at its smallest bucket; throws
/// `runtime::Error` when `batch` is given for a model of fixed shapes, when the files' batch is not
/// `batch` (when given) or when an input's other dimensions are wrong.
void SetInputs(BatchRun& run, const std::vector<std::string>& specs, int64_t batch = 0);

/// Writes output `i` of `run`'s last run to `files[i]` (.npy); throws `runtime::Error` when
/// there are more files than outputs or one cannot be written.
void SaveOutputs(const BatchRun& run, const std::vector<std::string>& files);

/// Latency of whole-model runs, in milliseconds.
struct Latency {
  double mean_ms = 0;    ///< mean
  double median_ms = 0;  ///< median
  double min_ms = 0;     ///< fastest
};

/// Mean, median and fastest of `ms` (all zero when it is empty).
Latency Summarize(std::vector<double> ms);

/// Runs the model `repeat` times (at least once), timing each run.
Latency TimeRuns(runtime::GraphExecutor& exec, int repeat);
/// Runs `run` `repeat` times (at least once), timing each run (of every chunk of its batch).
Latency TimeRuns(BatchRun& run, int repeat);

}  // namespace deploy
}  // namespace tessera

#endif  // TESSERA_DEPLOY_RUN_MODEL_H_
