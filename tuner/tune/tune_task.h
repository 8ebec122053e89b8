/// \file
/// The tuning loop of one task: resume from the tuning log, let the cost model learn from the
/// log's other shapes of the template (transfer), search with the chosen tuner, measure locally in
/// worker processes, and append every measurement to the log as it happens.
#ifndef TESSERA_TUNER_TUNE_TUNE_TASK_H_
#define TESSERA_TUNER_TUNE_TUNE_TASK_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/task/task.h"
#include "records/tuning_log.h"
#include "tuner/measure/local_measurer.h"
#include "tuner/measure/task_measure.h"
#include "tuner/search/model_based_tuner.h"
#include "tuner/search/tuner.h"

namespace tessera {
namespace tuner {

/// The version written into every record.
constexpr const char* kTunerVersion = "tessera-tuner 0.1";

/// Options of `TuneTask`.
struct TuneTaskOptions {
  int64_t trials = 64;
  std::string tuner = "xgb";    ///< xgb, ga, random or grid
  int batch_size = 8;           ///< candidates built in parallel per batch
  int64_t early_stopping = -1;  ///< trials without improvement; -1: never
  bool transfer = true;         ///< fit the xgb model on the log's other shapes too
  /// Measure the template's fallback config first (unless the log has it), so that the best
  /// record is never slower than what an untuned build would use.
  bool fallback_first = true;
  /// Measured first too, after the fallback (those the log has already are skipped): the best
  /// configurations of the same kernel in a smaller batch bucket, for a model's task that
  /// follows it.
  std::vector<space::ConfigEntity> seed_configs;
  /// xgb features: "knob" (knob values and shape, fast) or "loop" (also the lowered loop nest of
  /// every candidate: slower, so the annealing is shortened).
  std::string features = "knob";
  int64_t transfer_min_records = 64;  ///< fewer records of other shapes: no transfer
  uint64_t seed = 1;
  std::string device_key = "local";
  LocalMeasureOptions measure;
  RunOptions run;
  /// The task's inputs and reference output (`MakeTaskFixture(task, run.seed)`) when the caller
  /// keeps them between runs: a batch-16 convolution's reference takes seconds, a follower's
  /// batch one or two candidates. Null: made here. Local measurement only.
  std::shared_ptr<const TaskFixture> fixture;
  /// When set, candidates run on fleet devices of key `rpc_key` leased from this tracker
  /// (records get the key as their device key); otherwise on this machine.
  std::string rpc_tracker;
  std::string rpc_key;
  std::string rpc_token;
};

/// What a tuning run did.
struct TuneTaskResult {
  TuneResult search;         ///< trials of this run; `best` includes resumed history
  int64_t resumed = 0;       ///< records of this task and target loaded from the log
  bool transferred = false;  ///< the model learned from other shapes too
  int64_t requeued = 0;      ///< candidates moved to another device after a device loss
};

/// A search strategy by name for `task`; throws `UserError` listing the names for an unknown one.
std::unique_ptr<Tuner> MakeTuner(const std::string& name, const task::Task& task, uint64_t seed);

/// The xgb tuner's feature function for `task` ("knob" or "loop"); throws `UserError` for
/// another name.
FeatureFn TaskFeatureFn(const task::Task& task, const std::string& kind);

/// Tunes `task`, appending each batch's records to `log`; `progress` sees every batch.
TuneTaskResult TuneTask(const task::Task& task, records::TuningLog* log,
                        const TuneTaskOptions& options, const ProgressFn& progress = nullptr);

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_TUNE_TUNE_TASK_H_
