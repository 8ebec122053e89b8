/// \file
/// `ModelTask`: one tunable workload of a model, as model builds list it (`ExtractTasks`) and as
/// model tuning, tuning curves and tuning jobs take it. Its own header so that the tuner reads it
/// without the model build.
#ifndef TESSERA_COMPILER_DRIVER_MODEL_TASK_H_
#define TESSERA_COMPILER_DRIVER_MODEL_TASK_H_

#include <string>

namespace tessera {

/// A tunable workload of a model (one template instance), deduplicated by workload key.
struct ModelTask {
  std::string workload_key;  ///< e.g. "conv2d_NCHWc.x86(1,64,56,56,64,3,3,1,1,float32)"
  int weight = 0;            ///< how many kernels of the model use it
  double flops = 0;          ///< floating-point operations of one call
  bool tuned = false;        ///< a record of the log was used
  /// The record was measured at the default thread count: the log has none at the target's
  /// `-num-threads`.
  bool other_threads = false;
  /// Another way to compute the kernels of the task with this workload key (a Winograd
  /// convolution for a direct one), empty for none: the build takes it where its record is
  /// faster. Tuning measures both; the coverage line counts the task it replaces.
  std::string alternative_to;
  /// Why the log's records of the workload were not used (`ChosenConfig::unused_records`), for
  /// the coverage line; empty when it is tuned or the log has none.
  std::string unused_records;
  /// Untuned, configured from this workload's record (`ChosenConfig::nearest_workload`).
  std::string nearest_workload;
  /// Untuned, configured by the cost model (`ChosenConfig::predicted_from`).
  bool predicted = false;
  /// The model's weights exceed the target's caches (`TargetHardware::cache_bytes`), so its
  /// kernels read theirs from memory on every run: the tuner times them so.
  bool cold_weights = false;
  /// Tuned for several batch buckets: the workload key of the same kernel in the smallest bucket
  /// (a workload of the same template that differs only in one number, the batch), empty for
  /// none. This task follows it: it measures that kernel's best configurations, no search of its
  /// own (`ScheduledTask::seed_from`).
  std::string smaller_bucket;
};

}  // namespace tessera

#endif  // TESSERA_COMPILER_DRIVER_MODEL_TASK_H_
