/// \file
/// Tuning every tunable task of a model under one trial budget: a `TaskScheduler` picks the task
/// whose next batch should cut the most end-to-end latency, and `TuneTask` runs that batch
/// (resuming from the log, transfer from the log's other shapes, local or fleet measurement).
#ifndef TESSERA_TUNER_TUNE_TUNE_MODEL_H_
#define TESSERA_TUNER_TUNE_TUNE_MODEL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compiler/driver/model_task.h"
#include "records/tuning_log.h"
#include "tuner/tune/task_scheduler.h"
#include "tuner/tune/tune_task.h"

namespace tessera {
namespace tuner {

/// `tasks` as the task scheduler takes them: alternatives by index, a Winograd convolution's with
/// the model build's rule for when it replaces the direct one (`topi::WinogradBeatsDirect`, its
/// tiles from the configuration space on `target`).
std::vector<ScheduledTask> ScheduledTasksOf(const std::vector<ModelTask>& tasks,
                                            const std::string& target);

/// Options of `TuneModel`.
struct TuneModelOptions {
  /// Trials over all tasks, the log's earlier records of these tasks on this target included:
  /// running the same tuning again after an interruption continues it, and after a finished
  /// run measures nothing.
  int64_t trials = 256;
  TuneTaskOptions task;  ///< per batch (`task.trials` and `task.early_stopping` are ignored)
  TaskSchedulerOptions schedule;
};

/// Where a model's tuning stands, after each batch.
struct TuneModelProgress {
  int task = -1;           ///< index of the task just tuned
  int64_t trials = 0;      ///< records of all tasks, earlier ones included
  int64_t measured = 0;    ///< measured in this run
  int64_t budget = 0;      ///< `TuneModelOptions::trials`
  double estimated = 0;    ///< Σ weight × best (seconds) over tasks with a best
  int measured_tasks = 0;  ///< tasks with a best
};

/// What became of one task.
struct TunedTaskSummary {
  int64_t trials = 0;    ///< records, earlier ones included
  int64_t measured = 0;  ///< of which measured in this run
  double best = 0;       ///< seconds; +infinity without a successful trial
  bool stalled = false;  ///< stopped because its best stopped improving
  bool exhausted = false;
};

/// What a model's tuning did.
struct TuneModelResult {
  std::vector<TunedTaskSummary> tasks;  ///< in the order given
  int64_t measured = 0;                 ///< trials of this run
  double estimated = 0;                 ///< Σ weight × best (seconds)
  /// The workloads whose kernels `estimated` counts: every task with a best, and the task each
  /// alternative with a best may stand in for. A model's other template kernels run configs
  /// no record timed, which the estimate leaves out.
  std::vector<std::string> estimated_workloads;
  bool stalled = false;  ///< ended because the estimate stopped improving (`model_stalled`)
};

/// Tunes `tasks` for `target`, appending every batch to `log`; `progress` sees every batch.
TuneModelResult TuneModel(const std::vector<ModelTask>& tasks, const std::string& target,
                          records::TuningLog* log, const TuneModelOptions& options,
                          const std::function<void(const TuneModelProgress&)>& progress = nullptr);

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_TUNE_TUNE_MODEL_H_
