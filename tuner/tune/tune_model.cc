#include "tuner/tune/tune_model.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "compiler/driver/target.h"
#include "compiler/space/config_proto.h"
#include "compiler/support/error.h"
#include "compiler/task/task.h"
#include "compiler/topi/conv2d_winograd_x86.h"
#include "records/tuning_log.h"
#include "tuner/measure/task_measure.h"
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
  const double bandwidth = HardwareOf(Target(target)).memory_bytes_per_s;
  return [winograd, shape, bandwidth](double direct_s, double winograd_s, int64_t config) {
    const space::ConfigSpace& space = winograd->config_space();
    const int64_t m =
        config >= 0 && config < space.size() ? topi::WinogradTile(space.Get(config)) : 4;
    return topi::WinogradBeatsDirect(shape, direct_s, winograd_s, m, bandwidth);
  };
}

// What a task that follows `source` measures next: the best `count` configurations of `source`
// in `log` that are configurations of its space too, best first, those it has measured already
// (its own records in `log`) left out. Records of both are read in `cold_weights`' condition.
// (Not its fallback: without records of its own a build takes the nearest shape's best, which
// is the first of these.)
std::vector<space::ConfigEntity> ToFollow(const task::Task& source, const task::Task& task,
                                          const records::TuningLog& log, bool cold_weights,
                                          size_t count) {
  auto history_of = [&](const task::Task& t) {
    return TrialsFromLog(log, t.workload_key(), t.target(), t.config_space(), t.templ().version,
                         cold_weights)
        .trials;
  };
  std::set<int64_t> measured;
  for (const Trial& trial : history_of(task)) measured.insert(trial.config.index());
  std::vector<space::ConfigEntity> next;
  std::vector<Trial> best = history_of(source);
  std::stable_sort(best.begin(), best.end(),
                   [](const Trial& a, const Trial& b) { return a.outcome.cost < b.outcome.cost; });
  for (size_t i = 0; i < best.size() && i < count && std::isfinite(best[i].outcome.cost); ++i) {
    try {
      space::ConfigEntity config =
          space::ConfigFromProto(task.config_space(), space::ConfigToProto(best[i].config));
      if (measured.insert(config.index()).second) next.push_back(std::move(config));
    } catch (const UserError&) {
      // Its tiles do not divide this shape's extents.
    }
  }
  return next;
}

// How many of its source's best configurations a follower measures: the best tiles of one image
// are those of sixteen as a rule, so the second best is insurance and more would be a search.
constexpr size_t kFollowedConfigs = 2;

// `batch` made a follower's: the configurations `ToFollow` gives, nothing of its own choosing.
void FollowerBatch(const task::Task& source, const task::Task& task, const records::TuningLog& log,
                   TuneTaskOptions* batch) {
  batch->seed_configs = ToFollow(source, task, log, batch->run.cold_weights, kFollowedConfigs);
  batch->trials = std::min<int64_t>(batch->trials, batch->seed_configs.size());
  batch->fallback_first = false;
  batch->tuner = "random";  // proposes nothing here: no cost model to fit
  batch->transfer = false;
}

// The tasks' fixtures (inputs and reference outputs), kept between their batches up to
// `budget_bytes` in all, the least recently used given up first.
class FixtureCache {
 public:
  explicit FixtureCache(int64_t budget_bytes) : budget_bytes_(budget_bytes) {}

  std::shared_ptr<const TaskFixture> Get(int index, const task::Task& task, uint64_t seed) {
    auto found = entries_.find(index);
    if (found == entries_.end()) {
      std::shared_ptr<const TaskFixture> made = MakeTaskFixture(task, seed);
      const int64_t bytes = FixtureBytes(*made);
      found = entries_.emplace(index, Entry{std::move(made), bytes, 0}).first;
      bytes_ += bytes;
    }
    found->second.used = ++clock_;
    std::shared_ptr<const TaskFixture> fixture = found->second.fixture;
    while (bytes_ > budget_bytes_ && entries_.size() > 1) {
      auto oldest = std::min_element(entries_.begin(), entries_.end(), [](auto& a, auto& b) {
        return a.second.used < b.second.used;
      });
      bytes_ -= oldest->second.bytes;
      entries_.erase(oldest);
    }
    return fixture;
  }

 private:
  struct Entry {
    std::shared_ptr<const TaskFixture> fixture;
    int64_t bytes;
    int64_t used;
  };
  std::map<int, Entry> entries_;
  int64_t budget_bytes_, bytes_ = 0, clock_ = 0;
};

// What the fixtures of a model's tasks may hold between batches.
constexpr int64_t kFixtureCacheBytes = int64_t{1} << 30;

// The workloads whose kernels an estimate over `summaries` counts (see
// `TuneModelResult::estimated_workloads`).
std::vector<std::string> EstimatedWorkloads(const std::vector<ModelTask>& tasks,
                                            const std::vector<TunedTaskSummary>& summaries) {
  std::vector<std::string> out;
  for (size_t t = 0; t < tasks.size(); ++t) {
    if (!std::isfinite(summaries[t].best)) continue;
    out.push_back(tasks[t].workload_key);
    if (!tasks[t].alternative_to.empty()) out.push_back(tasks[t].alternative_to);
  }
  return out;
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
    // The Winograd template of any CPU family (.x86, .arm) stands in for the direct one by rule.
    if (replaced >= 0 &&
        records::TemplateOfWorkload(t.workload_key).rfind("conv2d_winograd_NCHWc.", 0) == 0) {
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
  FixtureCache fixtures(kFixtureCacheBytes);
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
    const int source = scheduled[t].seed_from;
    if (source >= 0) FollowerBatch(parsed[source], parsed[t], *log, &batch);
    std::vector<double> costs;
    std::vector<int64_t> configs;
    if (batch.trials > 0) {
      if (batch.rpc_tracker.empty()) batch.fixture = fixtures.Get(t, parsed[t], batch.run.seed);
      TuneTask(parsed[t], log, batch, [&](const TuneProgress&, const std::vector<Trial>& trials) {
        for (const Trial& trial : trials) {
          costs.push_back(trial.outcome.cost);
          configs.push_back(trial.config.index());
        }
      });
    }
    if (costs.empty() && source < 0) scheduler.SetExhausted(t);  // nothing left to propose
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
  result.estimated_workloads = EstimatedWorkloads(tasks, result.tasks);
  result.stalled = scheduler.model_stalled();
  return result;
}

}  // namespace tuner
}  // namespace tessera
