/// \file
/// `BatchRun`: runs a loaded model at any batch. An artifact of batch buckets (`tessera compile
/// --batch 1,4,16`) holds one build per bucket; a batch of n runs on the smallest bucket that
/// holds it, its rows padded (the padding never reaches the outputs), and a batch above the
/// largest bucket runs as chunks of the largest, the last one on the smallest bucket that holds
/// what is left. A model of fixed shapes runs as it is, at its one shape.
#ifndef TESSERA_DEPLOY_BATCH_RUN_H_
#define TESSERA_DEPLOY_BATCH_RUN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "deploy/artifact.h"
#include "runtime/exec_graph.h"
#include "runtime/graph_executor.h"
#include "runtime/ndarray.h"

namespace tessera {
namespace deploy {

/// Runs of one loaded model; used by one thread at a time.
class BatchRun {
 public:
  /// Runs `model`, which must outlive this.
  explicit BatchRun(LoadedModel& model);

  /// Whether the model takes any batch (its artifact has batch buckets).
  bool batched() const { return !buckets_.empty(); }
  /// The batch sizes it was built for, ascending (empty for a model of fixed shapes).
  const std::vector<int64_t>& buckets() const { return buckets_; }
  /// The batch dimension of each input, in order (-1 each for a model of fixed shapes).
  std::vector<int> batch_axes() const;
  /// Number of inputs.
  int NumInputs() const { return model_.executor.NumInputs(); }
  /// Number of outputs.
  int NumOutputs() const { return model_.executor.NumOutputs(); }
  /// The inputs' names, dtypes and shapes at batch `n` (a model of fixed shapes: its own).
  std::vector<runtime::ExecTensor> InputsAt(int64_t n) const;
  /// The outputs' names, dtypes and shapes at batch `n`.
  std::vector<runtime::ExecTensor> OutputsAt(int64_t n) const;
  /// The bucket that runs a batch of `n`: the smallest holding it, else the largest (run in
  /// chunks).
  int64_t BucketFor(int64_t n) const;

  /// Sets every input; their shapes must be the model's at one batch n (for a model of fixed
  /// shapes, its own). Throws `runtime::Error` naming the input whose dtype or other dimensions
  /// differ, or whose batch differs from the others'.
  void SetInputs(const std::vector<runtime::NDArray>& inputs);
  /// The batch of the inputs set (0 for a model of fixed shapes, or before `SetInputs`).
  int64_t batch() const { return batch_; }
  /// Runs the model on the inputs set: `Runs()` runs of bucket executors.
  void Run();
  /// How many bucket runs one `Run` makes (1 unless the batch exceeds the largest bucket).
  int Runs() const;
  /// Output `i` of the last run, with the inputs' batch: valid until the next `Run`.
  runtime::NDArray GetOutput(int i) const;
  /// The executor of the bucket that runs the inputs' first rows (the only one of a model of
  /// fixed shapes), with those rows set after a `Run`: what a per-kernel profile runs.
  runtime::GraphExecutor& executor();

 private:
  // The index of `bucket` in `buckets_`, and the executor of the bucket at `index`.
  size_t BucketIndex(int64_t bucket) const;
  runtime::GraphExecutor& BucketExecutor(size_t index);
  // `list` at batch `n` for a model of batch buckets, else the executor's `info(i)` each.
  template <typename InfoOf>
  std::vector<runtime::ExecTensor> At(int64_t n, const std::vector<TensorSignature>& list,
                                      int count, InfoOf info) const;

  LoadedModel& model_;
  std::vector<int64_t> buckets_;
  std::vector<runtime::NDArray> inputs_;               // as set, at batch_
  std::vector<runtime::NDArray> outputs_;              // at batch_, written by Run
  std::vector<std::vector<runtime::NDArray>> padded_;  // per bucket, its inputs' staging arrays
  int64_t batch_ = 0;
};

/// ", batch 9 on bucket 16" (", batch 40 in 3 runs of bucket 16" above the largest) for a
/// model of batch buckets, "" for one of fixed shapes: what run summaries and profiles print.
std::string BatchText(const BatchRun& run);

}  // namespace deploy
}  // namespace tessera

#endif  // TESSERA_DEPLOY_BATCH_RUN_H_
