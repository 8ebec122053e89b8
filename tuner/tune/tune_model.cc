#include "tuner/tune/tune_model.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "compiler/space/config_proto.h"
#include "compiler/support/error.h"
#include "compiler/task/task.h"
#include "compiler/topi/conv2d_winograd_x86.h"
#include "tuner/search/log_history.h"

namespace tessera {
namespace tuner {

namespace {

// The model build's rule for the Winograd convolution `workload_key` on `target`, as
// `ScheduledTask::replaces`; a best configuration that is unknown (or not of the space) counts
// with the larger tiles' extra weight reads, never crediting a record the build could refuse.
std::function<bool(double, double, int64_t)> WinogradRule(const std::string& workload_key,
                                                          const std::string& target) {
  auto winograd = std::make_shared<task::Task>(workload_key, target);
  const std::vector<int64_t>& a = winograd->args().ints;  // N, C, H, W, K, pad
  const topi::Conv2dShape shape{a[0], a[1], a[2], a[3], a[4], 3, 3, 1, a[5]};
  return [winograd, shape](double direct_s, double winograd_s, int64_t config) {
    const space::ConfigSpace& space = winograd->config_space();
    const int64_t m =
        config >= 0 && config < space.size() ? topi::WinogradTile(space.Get(config)) : 4;
    return topi::WinogradBeatsDirect(shape, direct_s, winograd_s, m);
  };
}

// The best `count` configurations of `source` in `log` (measured in `cold_weights`' condition)
// that are configurations of `task`'s space too, best first.
std::vector<space::ConfigEntity> BestConfigsOf(const task::Task& source, const task::Task& task,
                                               const records::TuningLog& log, bool cold_weights,
                                               size_t count) {
  LoadedHistory history =
      TrialsFromLog(log, source.workload_key(), source.target(), source.config_space(),
                    source.templ().version, cold_weights);
  std::stable_sort(history.trials.begin(), history.trials.end(),
                   [](const Trial& a, const Trial& b) { return a.outcome.cost < b.outcome.cost; });
  std::vector<space::ConfigEntity> best;
  for (const Trial& trial : history.trials) {
    if (best.size() >= count || !std::isfinite(trial.outcome.cost)) break;
    try {
      best.push_back(
          space::ConfigFromProto(task.config_space(), space::ConfigToProto(trial.config)));
    } catch (const UserError&) {
      // Its tiles do not divide this shape's extents: the next one.
    }
  }
  return best;
}

}  // namespace

std::vector<ScheduledTask> ScheduledTasksOf(const std::vector<ModelTask>& tasks,
                                            const std::string& target) {
  auto index_of = [&tasks](const std::string& key) {
    for (size_t i = 0; i < tasks.size() && !key.empty(); ++i) {
      if (tasks[i].workload_key == key) return static_cast<int>(i);
    }
    return -1;
  };
  std::vector<ScheduledTask> scheduled;
  for (const ModelTask& t : tasks) {
    const int replaced = index_of(t.alternative_to);
    scheduled.push_back({static_cast<double>(t.weight), t.flops, replaced, {}});
    if (replaced >= 0 && t.workload_key.rfind("conv2d_winograd_NCHWc.x86(", 0) == 0) {
      scheduled.back().replaces = WinogradRule(t.workload_key, target);
    }
    const int source = index_of(t.smaller_bucket);
    if (source >= 0 && tasks[source].smaller_bucket.empty()) scheduled.back().seed_from = source;
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
  const std::vector<ScheduledTask> scheduled = ScheduledTasksOf(tasks, target);
  TaskScheduler scheduler(scheduled, options.schedule);
  TuneModelResult result;
  result.tasks.resize(tasks.size());
  int64_t recorded = 0;
  // Earlier records count: for the budget, for the curves, and a full space is done.
  for (size_t i = 0; i < parsed.size(); ++i) {
    LoadedHistory history =
        TrialsFromLog(*log, parsed[i].workload_key(), target, parsed[i].config_space(),
                      parsed[i].templ().version, tasks[i].cold_weights);
    std::vector<double> costs;
    std::vector<int64_t> configs;
    for (const Trial& trial : history.trials) {
      costs.push_back(trial.outcome.cost);
      configs.push_back(trial.config.index());
    }
    scheduler.Record(static_cast<int>(i), costs, configs);
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
    batch.run.cold_weights = tasks[t].cold_weights;
    if (const int source = scheduled[t].seed_from; source >= 0) {
      // The smaller bucket's best so far, where this task has not measured them yet.
      batch.seed_configs = BestConfigsOf(parsed[source], parsed[t], *log, tasks[t].cold_weights,
                                         std::max(1, options.task.batch_size / 2));
    }
    std::vector<double> costs;
    std::vector<int64_t> configs;
    TuneTask(parsed[t], log, batch, [&](const TuneProgress&, const std::vector<Trial>& trials) {
      for (const Trial& trial : trials) {
        costs.push_back(trial.outcome.cost);
        configs.push_back(trial.config.index());
      }
    });
    if (costs.empty()) scheduler.SetExhausted(t);  // nothing left to propose
    scheduler.Record(t, costs, configs);
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
