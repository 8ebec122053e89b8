/// \file
/// Which task of a model gets the next batch of trials: the one whose next batch is expected to
/// cut the most end-to-end latency. Pure bookkeeping over measured costs, so it can be tested on
/// synthetic tuning curves without measuring anything.
#ifndef TESSERA_TUNER_TUNE_TASK_SCHEDULER_H_
#define TESSERA_TUNER_TUNE_TASK_SCHEDULER_H_

#include <cstdint>
#include <functional>
#include <vector>

namespace tessera {
namespace tuner {

/// Knobs of `TaskScheduler`.
struct TaskSchedulerOptions {
  /// Below this many trials a task's improvement rate is not trusted and `prior_rate` is used.
  int64_t min_trials = 16;
  /// Optimistic relative improvement per `window` trials of a task with few trials (0.5: its
  /// best is expected to drop by half over the next window, as early trials of a template do).
  double prior_rate = 0.5;
  /// Trials over which the improvement rate is measured.
  int64_t window = 16;
  /// Lowest rate a running task is given, so a task on a plateau still gets a turn when the
  /// others' gains are smaller.
  double floor_rate = 0.01;
  /// A task stops when its best improved by less than `stall_improvement` (relative) over its
  /// last `stall_trials` trials.
  int64_t stall_trials = 48;
  double stall_improvement = 0.01;
  /// The whole model stops (`Next` returns -1) when, with every task measured, its estimated
  /// latency improved by less than `model_stall_improvement` (relative) over the last
  /// `model_stall_trials` trials of all tasks: the tasks' own stall rule alone let a ResNet-18
  /// run spend its last 600 of 900 trials on 0.1%. 0 turns it off. Followers
  /// (`ScheduledTask::seed_from`) count neither in that estimate nor among those trials: they
  /// only measure what the searched tasks find, so the search ends as it would without them.
  int64_t model_stall_trials = 128;
  double model_stall_improvement = 0.005;
};

/// One tunable task as the scheduler sees it.
struct ScheduledTask {
  double weight = 1;  ///< occurrences in the model
  double flops = 0;   ///< of one call; orders tasks that have no measurement yet
  /// The index of the task this one can replace (the model runs the faster of the two: the
  /// estimate counts the better one), -1 for none.
  int alternative_to = -1;
  /// For an alternative, when set: whether the model runs it instead of the task it replaces
  /// (the model build's rule), given that task's best cost (+infinity without one), its own best
  /// cost and the index of its best configuration (-1 when unknown). Unset: the faster one runs.
  std::function<bool(double replaced_s, double best_s, int64_t best_config)> replaces;
  /// The index of the task this one follows (the same kernel in a smaller batch bucket, cheaper
  /// to measure), -1 for none. It does not search: each of its batches measures that task's
  /// best configurations, so it waits until that task has `min_trials` trials (or is
  /// finished), comes after the tasks not measured yet that start from nothing, then is due
  /// again only when that task's best changed, expecting that task's improvement rate.
  int seed_from = -1;
};

/// Σ weight × best over `tasks` (`best[t]`: task t's best cost, +infinity without one), a task
/// and its alternatives counting once, at the cost of the one the model runs: what the model's
/// tunable part is estimated to take. `best_config[t]`: the configuration index of task t's
/// best (for `ScheduledTask::replaces`; empty or -1: unknown).
double EstimatedModelLatency(const std::vector<ScheduledTask>& tasks,
                             const std::vector<double>& best,
                             const std::vector<int64_t>& best_config = {});

/// Chooses tasks by expected gain: weight × current best × improvement rate. A task without a
/// successful trial comes first (those that search first, then the sources followers wait for,
/// then followers; largest weight × FLOPs first among each); a task with fewer than `min_trials`
/// trials uses the optimistic `prior_rate`; a task that follows another
/// (`ScheduledTask::seed_from`) that one's rate, and only when there is something new to follow,
/// and a task that a follower not measured yet waits for is as urgent as one not measured; a
/// stalled or exhausted task is never chosen again.
class TaskScheduler {
 public:
  /// A scheduler over `tasks`, none measured yet.
  TaskScheduler(std::vector<ScheduledTask> tasks, TaskSchedulerOptions options = {});

  /// Adds measured costs of `task` in trial order (seconds; +infinity for a failed trial), with
  /// the configuration index of each (`configs`, parallel to `costs`; empty: unknown). For a
  /// task that follows another, also notes that it has measured that one's best as it is now
  /// (with no costs too: none of those configurations fit it).
  void Record(int task, const std::vector<double>& costs, const std::vector<int64_t>& configs = {});
  /// Marks `task` as having no configuration left to measure.
  void SetExhausted(int task);

  /// The task for the next batch, or -1 when every task is stalled or exhausted, or the model's
  /// estimate has stalled (`model_stalled`).
  int Next() const;
  /// The estimated latency stopped improving (see `TaskSchedulerOptions::model_stall_trials`).
  bool model_stalled() const;
  /// Expected latency saved by `task`'s next `window` trials (seconds × weight); +infinity for
  /// a task not measured yet, 0 for a finished one.
  double Gain(int task) const;
  /// Σ weight × best over tasks with a best (seconds), a task and its alternatives counting
  /// the best of them once; `measured` gets the count of tasks with a best.
  double EstimatedLatency(int* measured = nullptr) const;

  int64_t trials(int task) const;  ///< trials recorded for `task`
  double best(int task) const;     ///< its best cost; +infinity without a successful trial
  bool stalled(int task) const;    ///< its best stopped improving
  bool finished(int task) const;   ///< stalled or exhausted
  int size() const { return static_cast<int>(tasks_.size()); }

 private:
  struct State {
    std::vector<double> best_after;  ///< best cost after each trial
    int64_t best_config = -1;        ///< the configuration of the best, -1 when unknown
    bool exhausted = false;
    /// A follower: its source's best configuration when it was last recorded (-2: never).
    int64_t followed_config = -2;
  };
  double BestBefore(int task, int64_t trials_ago) const;
  /// Σ weight × best over the tasks with a best, followers among them or not; `measured` gets
  /// the count of tasks with a best, followers included.
  double Estimate(bool followers, int* measured) const;
  /// Σ weight × best over the tasks that search (+infinity while any task has no best).
  double SearchedEstimate() const;
  /// The expected relative improvement of `task`'s next `window` trials.
  double Rate(int task) const;
  /// Whether `task` follows another and has nothing to measure: that one has too few trials
  /// yet, or its best has not changed since `task` last measured.
  bool Waiting(int task) const;

  std::vector<ScheduledTask> tasks_;
  std::vector<State> states_;
  /// The estimated latency of the searched tasks after each of their recorded trials, in
  /// recording order (+infinity while a task, a follower included, has no best).
  std::vector<double> estimate_after_;
  TaskSchedulerOptions options_;
};

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_TUNE_TASK_SCHEDULER_H_
