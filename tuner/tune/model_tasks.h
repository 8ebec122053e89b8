/// \file
/// The tunable tasks of an ONNX model, as a build would look them up: shared by `tessera tune`,
/// `tessera job submit` and `tessera.tune`.
#ifndef TESSERA_TUNER_TUNE_MODEL_TASKS_H_
#define TESSERA_TUNER_TUNE_MODEL_TASKS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "tuner/tune/tune_model.h"

namespace tessera {
namespace tuner {

/// The batch sizes a model of symbolic batch is built and tuned for (`--batch-buckets`).
struct BatchBuckets {
  std::vector<int64_t> sizes;  ///< the buckets; empty: the model as imported (batch 1)
  /// Each bucket's weight (how often it runs, relatively); empty: all 1.
  std::vector<int> weights;
  std::string dim;  ///< the symbolic dimension that is the batch (empty: the first)
  /// Whether any of the three was given (they apply to a model, not to one task).
  bool given() const { return !sizes.empty() || !weights.empty() || !dim.empty(); }
};

/// Checks `buckets` (positive sizes, as many positive weights as sizes when given) and returns
/// them with the sizes ascending, duplicates dropped. Throws `UserError` saying what is wrong.
BatchBuckets CheckedBatchBuckets(BatchBuckets buckets);

/// The tasks of `model` for `target`, with `input_shapes` ("NAME:1x3x224x224") fixing inputs;
/// with `buckets`, the tasks of every bucket's build, a task's weight its kernel count in each
/// bucket times the bucket's weight (summed where buckets share a workload).
std::vector<ModelTask> ExtractModelTasks(const std::string& model,
                                         const std::vector<std::string>& input_shapes,
                                         const std::string& target,
                                         const BatchBuckets& buckets = {});

/// Applies `mode`, the value of `--cold-weights` (and of `tessera.tune`'s `cold_weights`), to a
/// model's `tasks`: "auto" leaves each its model's decision (`ModelTask::cold_weights`), "on" and
/// "off" set every one. Throws `UserError` for another value.
void ApplyColdWeights(const std::string& mode, std::vector<ModelTask>* tasks);

/// Whether a task tuned alone (a workload key: no model to decide) is timed with cold weights
/// under `mode`: only for "on". Throws `UserError` for a value other than auto, on or off.
bool ColdWeightsOfTask(const std::string& mode);

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_TUNE_MODEL_TASKS_H_
