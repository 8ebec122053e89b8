#include "tracker/dashboard/dashboard_json.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tessera {
namespace tracker {

Json FleetJson(const v1::FleetStatus& status) {
  // Every key ever registered appears, even with no server left, so a dead board stays visible.
  std::map<std::string, Json> keys;
  auto key_entry = [&keys](const std::string& key) -> Json& {
    Json& entry = keys[key];
    if (entry.is_null()) {
      entry = {{"key", key}, {"free", 0}, {"busy", 0}, {"dead", 0}, {"queued", 0}};
    }
    return entry;
  };
  for (const std::string& key : status.keys()) key_entry(key);
  Json servers = Json::array();
  for (const v1::ServerStatus& s : status.servers()) {
    const std::string& state = s.state();
    Json& entry = key_entry(s.key());
    if (entry.contains(state)) entry[state] = entry[state].get<int64_t>() + 1;
    Json gpus = Json::array();
    for (const v1::GpuInfo& g : s.info().gpus()) {
      gpus.push_back({{"name", g.name()}, {"arch", g.arch()}, {"memory_bytes", g.memory_bytes()}});
    }
    servers.push_back({{"key", s.key()},
                       {"state", state},
                       {"address", s.address()},
                       {"server_id", s.server_id()},
                       {"session_id", s.session_id()},
                       {"arch", s.info().arch()},
                       {"cores", s.info().cores()},
                       {"target", s.info().target()},
                       {"gpus", gpus},
                       {"last_heartbeat_age_ms", s.last_heartbeat_age_ms()}});
  }
  for (const v1::QueueStatus& q : status.queues()) key_entry(q.key())["queued"] = q.length();
  Json sessions = Json::array();
  for (const v1::SessionStatus& s : status.sessions()) {
    sessions.push_back({{"session_id", s.session_id()},
                        {"key", s.key()},
                        {"user", s.user()},
                        {"server_address", s.server_address()},
                        {"age_ms", s.age_ms()},
                        {"expires_in_ms", s.expires_in_ms()}});
  }
  Json key_list = Json::array();
  for (auto& [key, entry] : keys) key_list.push_back(std::move(entry));
  return {{"keys", std::move(key_list)},
          {"servers", std::move(servers)},
          {"sessions", std::move(sessions)}};
}

Json BestJson(const records::TuningLog& log) {
  const std::vector<records::WorkloadStats> stats = log.Stats();
  Json workloads = Json::array();
  for (const records::WorkloadStats& s : stats) {
    if (static_cast<int64_t>(workloads.size()) == kDashboardMaxWorkloads) break;
    Json row = {{"workload_key", s.workload_key}, {"target", s.target},
                {"records", s.records},           {"failures", s.failures},
                {"best_seconds", nullptr},        {"config_index", nullptr},
                {"device_key", nullptr},          {"timestamp", nullptr}};
    if (std::isfinite(s.best_cost)) {
      if (auto best = log.Best(s.workload_key, s.target)) {
        row["best_seconds"] = records::MeanCost(*best);
        row["config_index"] = best->config_index();
        row["device_key"] = best->device_key();
        row["timestamp"] = best->timestamp();
      }
    }
    workloads.push_back(std::move(row));
  }
  return {{"total_records", log.Count()},
          {"workloads", std::move(workloads)},
          {"truncated", static_cast<int64_t>(stats.size()) > kDashboardMaxWorkloads}};
}

namespace {

Json SecondsOrNull(double seconds, bool known) { return known ? Json(seconds) : Json(nullptr); }

Json ImprovementsJson(const jobs::v1::TaskStatus& task) {
  Json points = Json::array();
  for (const jobs::v1::BestPoint& p : task.improvements()) {
    points.push_back({p.unix_ms(), p.done(), p.best_cost()});
  }
  return points;
}

}  // namespace

Json ModelCurveJson(const jobs::v1::JobStatus& job) {
  std::vector<std::pair<int64_t, std::pair<int, double>>> events;  // (when, (task, best))
  for (int t = 0; t < job.tasks_size(); ++t) {
    for (const jobs::v1::BestPoint& p : job.tasks(t).improvements()) {
      events.push_back({p.unix_ms(), {t, p.best_cost()}});
    }
  }
  std::stable_sort(events.begin(), events.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  // A task and its alternatives are one group, weighed by the task's weight at the faster best.
  std::map<std::string, int> index;
  for (int t = 0; t < job.tasks_size(); ++t) index[job.tasks(t).workload_key()] = t;
  std::vector<int> group(static_cast<size_t>(job.tasks_size()));
  for (int t = 0; t < job.tasks_size(); ++t) {
    const std::string& other = job.tasks(t).alternative_to();
    auto it = other.empty() ? index.end() : index.find(other);
    group[static_cast<size_t>(t)] = it == index.end() ? t : it->second;
  }
  std::vector<double> best(static_cast<size_t>(job.tasks_size()), 0);
  Json curve = Json::array();
  for (size_t i = 0; i < events.size(); ++i) {
    best[static_cast<size_t>(events[i].second.first)] = events[i].second.second;
    if (i + 1 < events.size() && events[i + 1].first == events[i].first) continue;
    std::vector<double> fastest(best.size(), 0);  // per group
    for (size_t t = 0; t < best.size(); ++t) {
      double& f = fastest[static_cast<size_t>(group[t])];
      if (best[t] > 0 && (f == 0 || best[t] < f)) f = best[t];
    }
    double total = 0;
    bool complete = true;
    for (int t = 0; t < job.tasks_size(); ++t) {
      if (group[static_cast<size_t>(t)] != t) continue;
      complete = complete && fastest[static_cast<size_t>(t)] > 0;
      total += static_cast<double>(std::max<int64_t>(job.tasks(t).weight(), 1)) *
               fastest[static_cast<size_t>(t)];
    }
    if (complete) curve.push_back({events[i].first, total});
  }
  return curve;
}

Json JobsJson(const jobs::v1::JobList& list) {
  Json jobs = Json::array();
  for (const jobs::v1::JobStatus& job : list.jobs()) {
    Json tasks = Json::array();
    int64_t failed = 0;
    double best = 0;
    for (const jobs::v1::TaskStatus& task : job.tasks()) {
      failed += task.failed();
      if (task.best_cost() > 0 && (best == 0 || task.best_cost() < best)) best = task.best_cost();
      tasks.push_back({{"workload_key", task.workload_key()},
                       {"trials", task.trials()},
                       {"done", task.done()},
                       {"failed", task.failed()},
                       {"leased", task.leased()},
                       {"best_seconds", SecondsOrNull(task.best_cost(), task.best_cost() > 0)},
                       {"eta_seconds", SecondsOrNull(task.eta_s(), task.eta_s() >= 0)},
                       {"exhausted", task.exhausted()},
                       {"weight", task.weight()},
                       {"alternative_to", task.alternative_to()},
                       {"cold_weights", task.cold_weights()},
                       {"improvements", ImprovementsJson(task)}});
    }
    jobs.push_back({{"id", job.job_id()},
                    {"name", job.name()},
                    {"state", job.state()},
                    {"user", job.user()},
                    {"priority", job.priority()},
                    {"target", job.target()},
                    {"rpc_key", job.rpc_key()},
                    {"trials_total", job.trials()},
                    {"trials_done", job.done()},
                    {"failed_share", job.done() > 0 ? Json(static_cast<double>(failed) / job.done())
                                                    : Json(nullptr)},
                    {"best_seconds", SecondsOrNull(best, best > 0)},
                    {"eta_seconds", SecondsOrNull(job.eta_s(), job.eta_s() >= 0)},
                    {"workers", job.workers()},
                    {"submitted_unix_ms", job.submitted_unix_ms()},
                    {"model_curve", ModelCurveJson(job)},
                    {"tasks", std::move(tasks)}});
  }
  return jobs;
}

Json QueueJson(const Json& jobs,
               const std::function<bool(const std::string& device_key)>& brokers) {
  int64_t active = 0, pending = 0, leased = 0, workers = 0;
  for (const Json& job : jobs) {
    const std::string state = job.value("state", "");
    if (state != "queued" && state != "running") continue;
    if (brokers && !brokers(job.value("rpc_key", ""))) continue;
    ++active;
    pending += std::max<int64_t>(
        0, job.value("trials_total", int64_t{0}) - job.value("trials_done", int64_t{0}));
    workers += job.value("workers", int64_t{0});
    for (const Json& task : job.value("tasks", Json::array())) {
      leased += task.value("leased", int64_t{0});
    }
  }
  return {{"active_jobs", active},
          {"pending_trials", pending},
          {"leased_trials", leased},
          {"workers", workers}};
}

}  // namespace tracker
}  // namespace tessera
