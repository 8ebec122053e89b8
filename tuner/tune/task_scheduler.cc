#include "tuner/tune/task_scheduler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

namespace tessera {
namespace tuner {
namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

TaskScheduler::TaskScheduler(std::vector<ScheduledTask> tasks, TaskSchedulerOptions options)
    : tasks_(std::move(tasks)), states_(tasks_.size()), options_(options) {}

void TaskScheduler::Record(int task, const std::vector<double>& costs,
                           const std::vector<int64_t>& configs) {
  State& s = states_.at(task);
  if (const int source = tasks_[task].seed_from; source >= 0) {
    s.followed_config = states_.at(source).best_config;
  }
  for (size_t i = 0; i < costs.size(); ++i) {
    const double cost = costs[i], best = s.best_after.empty() ? kInf : s.best_after.back();
    if (std::isfinite(cost) && cost < best) s.best_config = i < configs.size() ? configs[i] : -1;
    s.best_after.push_back(std::isfinite(cost) ? std::min(best, cost) : best);
    if (tasks_[task].seed_from < 0) estimate_after_.push_back(SearchedEstimate());
  }
}

double TaskScheduler::SearchedEstimate() const {
  int measured = 0;
  const double estimate = Estimate(/*followers=*/false, &measured);
  return measured == size() ? estimate : kInf;
}

bool TaskScheduler::model_stalled() const {
  const int64_t n = static_cast<int64_t>(estimate_after_.size());
  if (options_.model_stall_trials <= 0 || n <= options_.model_stall_trials) return false;
  const double now = estimate_after_.back();
  const double before = estimate_after_[n - 1 - options_.model_stall_trials];
  return std::isfinite(before) && before - now < options_.model_stall_improvement * before;
}

void TaskScheduler::SetExhausted(int task) { states_.at(task).exhausted = true; }

int64_t TaskScheduler::trials(int task) const {
  return static_cast<int64_t>(states_.at(task).best_after.size());
}

double TaskScheduler::best(int task) const {
  const State& s = states_.at(task);
  return s.best_after.empty() ? kInf : s.best_after.back();
}

double TaskScheduler::BestBefore(int task, int64_t trials_ago) const {
  const State& s = states_.at(task);
  int64_t n = static_cast<int64_t>(s.best_after.size()) - trials_ago;
  return n <= 0 ? kInf : s.best_after[n - 1];
}

bool TaskScheduler::stalled(int task) const {
  if (tasks_[task].seed_from >= 0) return false;  // it ends when its source's best stops moving
  if (trials(task) < std::max(options_.stall_trials, options_.min_trials)) return false;
  double now = best(task), before = BestBefore(task, options_.stall_trials);
  if (!std::isfinite(now)) return true;  // nothing ever ran: more of the same will not either
  // A first success within the window is an improvement.
  return std::isfinite(before) && before - now < options_.stall_improvement * before;
}

bool TaskScheduler::finished(int task) const { return states_.at(task).exhausted || stalled(task); }

double TaskScheduler::Rate(int task) const {
  const int source = tasks_[task].seed_from;
  if (source >= 0) return Rate(source);
  const double now = best(task);
  if (trials(task) >= options_.min_trials && std::isfinite(now)) {
    // Over the last `window` trials, or all but the first when there are just that many.
    double before = BestBefore(task, std::min(options_.window, trials(task) - 1));
    if (!std::isfinite(before)) return options_.prior_rate;
    return std::max((before - now) / before, options_.floor_rate);
  }
  return options_.prior_rate;
}

bool TaskScheduler::Waiting(int task) const {
  const int source = tasks_[task].seed_from;
  if (source < 0) return false;
  if (trials(source) < options_.min_trials && !finished(source)) return true;
  return states_[task].followed_config == states_[source].best_config;
}

double TaskScheduler::Gain(int task) const {
  if (finished(task) || Waiting(task)) return 0;
  double now = best(task);
  if (!std::isfinite(now)) return kInf;
  // A task that a follower not measured yet waits for is as urgent as one not measured yet.
  for (int t = 0; t < size() && trials(task) < options_.min_trials; ++t) {
    if (tasks_[t].seed_from == task && trials(t) == 0) return kInf;
  }
  return tasks_[task].weight * now * Rate(task);
}

int TaskScheduler::Next() const {
  if (model_stalled()) return -1;
  int chosen = -1;
  double chosen_gain = 0;
  // Ties (infinite gains) go to the tasks not measured yet that search, then to the sources a
  // follower waits for, then to the followers; among each, to the largest.
  std::tuple<bool, bool, double> chosen_order;
  for (int t = 0; t < size(); ++t) {
    double gain = Gain(t);
    if (gain <= 0) continue;
    const bool searches = tasks_[t].seed_from < 0;
    const std::tuple<bool, bool, double> order{searches && !std::isfinite(best(t)), searches,
                                               tasks_[t].weight * tasks_[t].flops};
    if (chosen < 0 || gain > chosen_gain || (gain == chosen_gain && order > chosen_order)) {
      chosen = t;
      chosen_gain = gain;
      chosen_order = order;
    }
  }
  return chosen;
}

double EstimatedModelLatency(const std::vector<ScheduledTask>& tasks,
                             const std::vector<double>& best,
                             const std::vector<int64_t>& best_config) {
  // Per task, the cost of what the model runs: it or one of its alternatives.
  std::vector<double> fastest = best;
  for (size_t t = 0; t < tasks.size(); ++t) {
    const int replaced = tasks[t].alternative_to;
    if (replaced < 0 || !std::isfinite(best[t])) continue;
    const int64_t config = t < best_config.size() ? best_config[t] : -1;
    const bool runs = tasks[t].replaces ? tasks[t].replaces(best[replaced], best[t], config)
                                        : best[t] < fastest[replaced];
    if (runs) fastest[replaced] = std::min(fastest[replaced], best[t]);
  }
  double total = 0;
  for (size_t t = 0; t < tasks.size(); ++t) {
    if (tasks[t].alternative_to < 0 && std::isfinite(fastest[t])) {
      total += tasks[t].weight * fastest[t];
    }
  }
  return total;
}

double TaskScheduler::Estimate(bool followers, int* measured) const {
  std::vector<double> bests(tasks_.size());
  std::vector<int64_t> configs(tasks_.size());
  int count = 0;
  for (int t = 0; t < size(); ++t) {
    if (std::isfinite(best(t))) ++count;
    bests[t] = followers || tasks_[t].seed_from < 0 ? best(t) : kInf;  // kInf counts nothing
    configs[t] = states_[t].best_config;
  }
  if (measured) *measured = count;
  return EstimatedModelLatency(tasks_, bests, configs);
}

double TaskScheduler::EstimatedLatency(int* measured) const {
  return Estimate(/*followers=*/true, measured);
}

}  // namespace tuner
}  // namespace tessera
