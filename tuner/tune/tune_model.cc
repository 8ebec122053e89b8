#include "tuner/tune/tune_model.h"

#include <algorithm>

#include "compiler/support/error.h"
#include "compiler/task/task.h"
#include "tuner/search/log_history.h"

namespace tessera {
namespace tuner {

std::vector<ScheduledTask> ScheduledTasksOf(const std::vector<ModelTask>& tasks) {
  std::vector<ScheduledTask> scheduled;
  for (const ModelTask& t : tasks) {
    int replaced = -1;
    for (size_t i = 0; i < tasks.size() && !t.alternative_to.empty(); ++i) {
      if (tasks[i].workload_key == t.alternative_to) replaced = static_cast<int>(i);
    }
    scheduled.push_back({static_cast<double>(t.weight), t.flops, replaced});
  }
  return scheduled;
}

TuneModelResult TuneModel(const std::vector<ModelTask>& tasks, const std::string& target,
                          records::TuningLog* log, const TuneModelOptions& options,
                          const std::function<void(const TuneModelProgress&)>& progress) {
  TESSERA_USER_CHECK(options.trials > 0) << "the trial budget must be positive";
  CheckTarget(target);
  std::vector<task::Task> parsed;
  for (const ModelTask& t : tasks) parsed.emplace_back(t.workload_key, target);
  TaskScheduler scheduler(ScheduledTasksOf(tasks), options.schedule);
  TuneModelResult result;
  result.tasks.resize(tasks.size());
  int64_t recorded = 0;
  // Earlier records count: for the budget, for the curves, and a full space is done.
  for (size_t i = 0; i < parsed.size(); ++i) {
    LoadedHistory history =
        TrialsFromLog(*log, parsed[i].workload_key(), target, parsed[i].config_space());
    std::vector<double> costs;
    for (const Trial& trial : history.trials) costs.push_back(trial.outcome.cost);
    scheduler.Record(static_cast<int>(i), costs);
    recorded += static_cast<int64_t>(costs.size());
    if (static_cast<int64_t>(costs.size()) >= parsed[i].config_space().size()) {
      scheduler.SetExhausted(static_cast<int>(i));
    }
  }
  for (int64_t round = 0; recorded < options.trials; ++round) {
    int t = scheduler.Next();
    if (t < 0) break;  // every task stalled or exhausted
    TuneTaskOptions batch = options.task;
    batch.trials = std::min<int64_t>(options.task.batch_size, options.trials - recorded);
    batch.early_stopping = -1;
    batch.seed = options.task.seed + static_cast<uint64_t>(round);  // fresh proposals each round
    std::vector<double> costs;
    TuneTask(parsed[t], log, batch, [&](const TuneProgress&, const std::vector<Trial>& trials) {
      for (const Trial& trial : trials) costs.push_back(trial.outcome.cost);
    });
    if (costs.empty()) scheduler.SetExhausted(t);  // nothing left to propose
    scheduler.Record(t, costs);
    recorded += static_cast<int64_t>(costs.size());
    result.measured += static_cast<int64_t>(costs.size());
    result.tasks[t].measured += static_cast<int64_t>(costs.size());
    if (progress) {
      TuneModelProgress p;
      p.task = t;
      p.trials = recorded;
      p.measured = result.measured;
      p.budget = options.trials;
      p.estimated = scheduler.EstimatedLatency(&p.measured_tasks);
      progress(p);
    }
  }
  for (int t = 0; t < scheduler.size(); ++t) {
    TunedTaskSummary& s = result.tasks[t];
    s.trials = scheduler.trials(t);
    s.best = scheduler.best(t);
    s.stalled = scheduler.stalled(t);
    s.exhausted = scheduler.finished(t) && !s.stalled;
  }
  result.estimated = scheduler.EstimatedLatency();
  result.stalled = scheduler.model_stalled();
  return result;
}

}  // namespace tuner
}  // namespace tessera
