#include "tracker/jobs/job_board.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>

#include "common/log.h"
#include "fleet/secrets.h"
#include "records/tuning_log.h"
#include "tracker/fair_share.h"

namespace tessera {
namespace tracker {
namespace {

constexpr size_t kMaxTasks = 4096;
constexpr int64_t kMaxTrialsPerTask = 1000000;
constexpr size_t kMaxKeyLength = 256;
constexpr size_t kMaxRpcKeyLength = 128;
constexpr size_t kMaxNameLength = 256;
constexpr int kMaxPriority = 1000;
constexpr int kMaxBatch = 1024;
constexpr size_t kMaxErrorMessage = 65536;
constexpr int kMaxCostsPerRecord = 10000;
// Leases restored after a restart run longer than fresh ones: their workers first have to notice
// that the tracker is back (gRPC reconnects with backoff).
constexpr int64_t kRestartGraceFactor = 2;
constexpr int64_t kRestartGraceMs = 5000;

bool Printable(const std::string& text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
}

// NAME(ARGS): letters, digits, '_' and '.' in the name; digits, letters, '_', '.', ',' and '-'
// in the arguments. The tracker cannot parse templates (it never links the compiler) but keeps
// keys it stores free of anything else.
bool WellFormedWorkloadKey(const std::string& key) {
  size_t open = key.find('(');
  if (open == 0 || open == std::string::npos || key.back() != ')') return false;
  for (size_t i = 0; i < key.size(); ++i) {
    char c = key[i];
    bool alnum = std::isalnum(static_cast<unsigned char>(c)) != 0;
    if (i < open && !(alnum || c == '_' || c == '.')) return false;
    if (i > open && i + 1 < key.size() && !(alnum || std::strchr("_.,-", c) != nullptr)) {
      return false;
    }
  }
  return true;
}

std::string Quoted(const std::string& text) {
  return "'" + (text.size() > 80 ? text.substr(0, 80) + "..." : text) + "'";
}

// Why a reported record cannot be stored for the lease's task ("" when it can).
std::string RecordProblem(const tuning::MeasureRecord& r, const std::string& workload_key,
                          const std::string& target, const std::string& device_key) {
  std::string why;
  if (r.workload_key() != workload_key) {
    why = "workload " + Quoted(r.workload_key()) + " is not the lease's " + Quoted(workload_key);
  } else if (r.target() != target) {
    why = "target " + Quoted(r.target()) + " is not the job's " + Quoted(target);
  } else if (r.device_key() != device_key) {
    why = "device key " + Quoted(r.device_key()) + " is not the job's " + Quoted(device_key);
  } else if (r.config_index() < 0) {
    why = "negative config index " + std::to_string(r.config_index());
  } else if (r.costs_size() > kMaxCostsPerRecord || r.error_message().size() > kMaxErrorMessage ||
             r.tuner_version().size() > kMaxNameLength) {
    why = "too large (costs, error message or tuner version)";
  } else if (!std::all_of(r.costs().begin(), r.costs().end(),
                          [](double c) { return std::isfinite(c) && c >= 0; })) {
    why = "costs must be finite and not negative";
  }
  return why;
}

}  // namespace

std::string ValidateSubmit(const jobs::v1::SubmitRequest& request) {
  if (request.tasks().empty()) return "a job needs at least one task";
  if (static_cast<size_t>(request.tasks_size()) > kMaxTasks) {
    return "a job has at most " + std::to_string(kMaxTasks) + " tasks, got " +
           std::to_string(request.tasks_size());
  }
  std::set<std::string> seen;
  for (const jobs::v1::TaskSpec& task : request.tasks()) {
    const std::string& key = task.workload_key();
    if (key.size() > kMaxKeyLength || !WellFormedWorkloadKey(key)) {
      return "task " + Quoted(key) + ": not a workload key (NAME(ARGS), at most " +
             std::to_string(kMaxKeyLength) + " characters)";
    }
    if (!seen.insert(key).second) return "task " + Quoted(key) + " is given twice";
    if (task.trials() < 1 || task.trials() > kMaxTrialsPerTask) {
      return "task " + Quoted(key) + ": trials must be 1.." + std::to_string(kMaxTrialsPerTask) +
             ", got " + std::to_string(task.trials());
    }
    if (task.weight() < 0 || task.weight() > kMaxTrialsPerTask) {
      return "task " + Quoted(key) + ": weight must be 0.." + std::to_string(kMaxTrialsPerTask) +
             ", got " + std::to_string(task.weight());
    }
  }
  for (const jobs::v1::TaskSpec& task : request.tasks()) {
    const std::string& other = task.alternative_to();
    if (!other.empty() && (other == task.workload_key() || seen.count(other) == 0)) {
      return "task " + Quoted(task.workload_key()) + ": alternative_to " + Quoted(other) +
             " is not another task of the job";
    }
  }
  if (request.target().empty() || request.target().size() > kMaxKeyLength ||
      !Printable(request.target())) {
    return "target " + Quoted(request.target()) + ": must be 1.." + std::to_string(kMaxKeyLength) +
           " printable characters";
  }
  const std::string& rpc_key = request.rpc_key();
  if (rpc_key.empty() || rpc_key.size() > kMaxRpcKeyLength ||
      !std::all_of(rpc_key.begin(), rpc_key.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("_.-", c);
      })) {
    return "rpc key " + Quoted(rpc_key) + ": must be 1.." + std::to_string(kMaxRpcKeyLength) +
           " letters, digits, '_', '.' or '-'";
  }
  if (std::abs(request.priority()) > kMaxPriority) {
    return "priority must be -" + std::to_string(kMaxPriority) + ".." +
           std::to_string(kMaxPriority) + ", got " + std::to_string(request.priority());
  }
  if (request.user().size() > kMaxRpcKeyLength || !Printable(request.user())) {
    return "user " + Quoted(request.user()) + ": at most " + std::to_string(kMaxRpcKeyLength) +
           " printable characters";
  }
  if (request.name().size() > kMaxNameLength || !Printable(request.name())) {
    return "name: at most " + std::to_string(kMaxNameLength) + " printable characters";
  }
  const std::string& id = request.job_id();
  if (!id.empty() && (id.size() != 16 || !std::all_of(id.begin(), id.end(), [](char c) {
                        return std::isdigit(static_cast<unsigned char>(c)) ||
                               (c >= 'a' && c <= 'f');
                      }))) {
    return "job id " + Quoted(id) + ": must be 16 lowercase hex digits";
  }
  static const std::set<std::string> kTuners = {"", "xgb", "ga", "random", "grid"};
  if (kTuners.count(request.tuner()) == 0) {
    return "tuner " + Quoted(request.tuner()) + ": expected xgb, ga, random or grid";
  }
  if (request.batch_size() < 0 || request.batch_size() > kMaxBatch) {
    return "batch size must be 1.." + std::to_string(kMaxBatch) + ", got " +
           std::to_string(request.batch_size());
  }
  return "";
}

JobBoard::JobBoard(JobStore* store, int64_t lease_ms, int64_t now_ms)
    : store_(store), lease_ms_(lease_ms) {
  StoredJobs stored = store_->Load();
  for (StoredJob& saved : stored.jobs) {
    Job job;
    for (const StoredTask& t : saved.tasks) {
      Task task;
      task.workload_key = t.workload_key;
      task.trials = t.trials;
      task.exhausted = t.exhausted;
      task.started_unix_ms = t.started_unix_ms;
      job.tasks.push_back(task);
    }
    next_seq_ = std::max(next_seq_, saved.seq + 1);
    if (saved.state == "queued" &&
        std::any_of(job.tasks.begin(), job.tasks.end(),
                    [](const Task& t) { return t.started_unix_ms > 0; })) {
      saved.state = "running";  // only the end states are written; a leased job was running
    }
    job.stored = std::move(saved);
    jobs_[job.stored.job_id] = std::move(job);
  }
  for (const StoredRecord& record : stored.records) {
    auto job = jobs_.find(record.job_id);
    if (job == jobs_.end() || record.task >= static_cast<int>(job->second.tasks.size())) continue;
    AddRecord(job->second, record.task, record.config_index, record.cost, record.unix_ms);
    if (!record.logged) unlogged_.push_back(record.record);
  }
  for (const StoredLease& saved : stored.leases) {
    auto job = jobs_.find(saved.job_id);
    if (job == jobs_.end() || saved.task >= static_cast<int>(job->second.tasks.size())) continue;
    // A shared store's leases run on the database's clock, which `now_ms` reads too; a tracker's
    // own clock starts again with the tracker.
    const int64_t expires_ms = store_->shared()
                                   ? saved.expires_ms
                                   : now_ms + kRestartGraceFactor * lease_ms_ + kRestartGraceMs;
    leases_[saved.lease_id] = {saved, expires_ms};
    job->second.tasks[saved.task].leased += saved.trials;
  }
  for (auto& [lease_id, reply] : stored.reports) reports_[lease_id] = reply;
  leases_issued_ = stored.leases_issued;
}

void JobBoard::InheritFairShare(const JobBoard& previous) {
  for (const auto& [user, served] : previous.last_served_) {
    last_served_[user] = std::max(last_served_[user], served);
  }
}

void JobBoard::MarkAllLogged() {
  store_->MarkAllLogged();
  unlogged_.clear();
}

void JobBoard::AddRecord(Job& job, int task_index, int64_t config_index, double cost,
                         int64_t unix_ms) {
  Task& task = job.tasks[task_index];
  task.configs.insert(config_index);
  ++task.done;
  if (!std::isfinite(cost)) {
    ++task.failed;
  } else if (task.best == 0 || cost < task.best) {
    task.best = cost;
    jobs::v1::BestPoint point;
    point.set_unix_ms(unix_ms);
    point.set_done(task.done);
    point.set_best_cost(cost);
    task.improvements.push_back(point);
  }
  task.last_unix_ms = std::max(task.last_unix_ms, unix_ms);
}

bool JobBoard::SameSubmission(const Job& job, const jobs::v1::SubmitRequest& request) {
  const StoredJob& s = job.stored;
  const std::string user = request.user().empty() ? "anonymous" : request.user();
  if (s.user != user || s.target != request.target() || s.rpc_key != request.rpc_key() ||
      s.tasks.size() != static_cast<size_t>(request.tasks_size())) {
    return false;
  }
  for (size_t i = 0; i < s.tasks.size(); ++i) {
    if (s.tasks[i].workload_key != request.tasks(static_cast<int>(i)).workload_key()) return false;
  }
  return true;
}

std::string JobBoard::Submit(const jobs::v1::SubmitRequest& request, int64_t now_unix_ms) {
  if (!request.job_id().empty()) {
    auto it = jobs_.find(request.job_id());
    if (it != jobs_.end()) return SameSubmission(it->second, request) ? it->first : "";
  }
  Job job;
  StoredJob& stored = job.stored;
  stored.job_id = request.job_id().empty() ? fleet::RandomHexId(8) : request.job_id();
  stored.seq = next_seq_++;
  stored.user = request.user().empty() ? "anonymous" : request.user();
  stored.priority = request.priority();
  stored.target = request.target();
  stored.rpc_key = request.rpc_key();
  stored.tuner = request.tuner().empty() ? "xgb" : request.tuner();
  stored.batch_size = request.batch_size() == 0 ? 8 : request.batch_size();
  stored.name = request.name();
  stored.state = "queued";
  stored.submitted_unix_ms = now_unix_ms;
  for (const jobs::v1::TaskSpec& spec : request.tasks()) {
    stored.tasks.push_back({spec.workload_key(), spec.trials(), false, 0,
                            std::max<int64_t>(spec.weight(), 1), spec.alternative_to(),
                            spec.cold_weights()});
    Task task;
    task.workload_key = spec.workload_key();
    task.trials = spec.trials();
    job.tasks.push_back(task);
  }
  store_->SaveJob(stored);
  TESSERA_LOG(kInfo) << "job submitted job=" << stored.job_id << " user=" << stored.user
                     << " tasks=" << job.tasks.size() << " key=" << stored.rpc_key;
  std::string id = stored.job_id;
  jobs_[id] = std::move(job);
  return id;
}

jobs::v1::JobStatus JobBoard::StatusOf(const Job& job, int64_t now_unix_ms) const {
  jobs::v1::JobStatus out;
  const StoredJob& s = job.stored;
  out.set_job_id(s.job_id);
  out.set_state(s.state);
  out.set_user(s.user);
  out.set_priority(s.priority);
  out.set_target(s.target);
  out.set_rpc_key(s.rpc_key);
  out.set_tuner(s.tuner);
  out.set_name(s.name);
  out.set_submitted_unix_ms(s.submitted_unix_ms);
  int64_t trials = 0, done = 0;
  double eta = 0;
  bool eta_known = true;
  for (size_t i = 0; i < job.tasks.size(); ++i) {
    const Task& task = job.tasks[i];
    jobs::v1::TaskStatus* t = out.add_tasks();
    t->set_workload_key(task.workload_key);
    t->set_trials(task.trials);
    t->set_done(task.done);
    t->set_failed(task.failed);
    t->set_leased(task.leased);
    t->set_best_cost(task.best);
    t->set_exhausted(task.exhausted);
    t->set_weight(s.tasks[i].weight);
    t->set_alternative_to(s.tasks[i].alternative_to);
    t->set_cold_weights(s.tasks[i].cold_weights);
    for (const jobs::v1::BestPoint& point : task.improvements) *t->add_improvements() = point;
    double task_eta = 0;
    if (!task.finished() && job.active()) {
      // The task's own pace since its first lease.
      int64_t elapsed = std::max<int64_t>(now_unix_ms - task.started_unix_ms, 1);
      task_eta = task.done > 0 && task.started_unix_ms > 0
                     ? (task.trials - task.done) * (elapsed / 1000.0) / task.done
                     : -1;
    }
    t->set_eta_s(task_eta);
    if (task_eta < 0) eta_known = false;
    eta += std::max(task_eta, 0.0);
    trials += task.trials;
    done += task.done;
  }
  out.set_trials(trials);
  out.set_done(done);
  out.set_eta_s(eta_known ? eta : -1);
  int workers = 0;
  for (const auto& [id, lease] : leases_) workers += lease.stored.job_id == s.job_id ? 1 : 0;
  out.set_workers(workers);
  return out;
}

jobs::v1::JobList JobBoard::List(int64_t now_unix_ms) const {
  std::vector<const Job*> ordered;
  for (const auto& [id, job] : jobs_) ordered.push_back(&job);
  std::sort(ordered.begin(), ordered.end(),
            [](const Job* a, const Job* b) { return a->stored.seq < b->stored.seq; });
  jobs::v1::JobList list;
  for (const Job* job : ordered) *list.add_jobs() = StatusOf(*job, now_unix_ms);
  return list;
}

std::optional<jobs::v1::JobStatus> JobBoard::Status(const std::string& job_id,
                                                    int64_t now_unix_ms) const {
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return std::nullopt;
  return StatusOf(it->second, now_unix_ms);
}

bool JobBoard::Cancel(const std::string& job_id) {
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return false;
  Job& job = it->second;
  if (!job.active()) return true;
  job.stored.state = "cancelled";
  store_->SetState(job_id, "cancelled");
  DropLeases(job);
  TESSERA_LOG(kInfo) << "job cancelled job=" << job_id;
  return true;
}

std::optional<jobs::v1::WorkLease> JobBoard::Lease(
    const std::string& worker_id, int64_t now_ms, int64_t now_unix_ms,
    const std::function<bool(const std::string& device_key)>& brokers) {
  auto served = [this](const std::string& user) {
    auto it = last_served_.find(user);
    return it == last_served_.end() ? uint64_t{0} : it->second;
  };
  // The best job with a batch to lease, and its task with the largest share left.
  Job* best = nullptr;
  int best_task = -1;
  for (auto& [id, job] : jobs_) {
    if (!job.active() || (brokers && !brokers(job.stored.rpc_key))) continue;
    int candidate = -1;
    double most_left = 0;
    for (size_t i = 0; i < job.tasks.size(); ++i) {
      const Task& task = job.tasks[i];
      int64_t left = task.trials - task.done - task.leased;
      if (task.exhausted || left <= 0) continue;
      double share = static_cast<double>(left) / static_cast<double>(task.trials);
      if (share > most_left) {
        most_left = share;
        candidate = static_cast<int>(i);
      }
    }
    if (candidate < 0) continue;
    const StoredJob& s = job.stored;
    if (best == nullptr || ServedBefore({s.priority, served(s.user), static_cast<uint64_t>(s.seq)},
                                        {best->stored.priority, served(best->stored.user),
                                         static_cast<uint64_t>(best->stored.seq)})) {
      best = &job;
      best_task = candidate;
    }
  }
  if (best == nullptr) return std::nullopt;
  Task& task = best->tasks[best_task];
  LiveLease lease;
  StoredLease& s = lease.stored;
  s.lease_id = fleet::RandomHexId();
  s.job_id = best->stored.job_id;
  s.task = best_task;
  s.worker_id = worker_id;
  s.trials = static_cast<int>(
      std::min<int64_t>(best->stored.batch_size, task.trials - task.done - task.leased));
  // Concurrent batches of one task search from different seeds, so they rarely overlap.
  s.seed = static_cast<uint64_t>(best->stored.seq) * 1000003u + ++leases_issued_;
  lease.expires_ms = now_ms + lease_ms_;
  s.expires_ms = lease.expires_ms;
  if (task.started_unix_ms == 0) task.started_unix_ms = now_unix_ms;
  store_->SaveLease(s, task.started_unix_ms, leases_issued_);
  task.leased += s.trials;
  best->stored.state = "running";
  last_served_[best->stored.user] = leases_issued_;
  leases_[s.lease_id] = lease;
  TESSERA_LOG(kInfo) << "batch leased job=" << s.job_id << " task=" << task.workload_key
                     << " trials=" << s.trials << " worker=" << worker_id;

  jobs::v1::WorkLease out;
  out.set_lease_id(s.lease_id);
  out.set_job_id(s.job_id);
  out.set_workload_key(task.workload_key);
  out.set_target(best->stored.target);
  out.set_rpc_key(best->stored.rpc_key);
  out.set_tuner(best->stored.tuner);
  out.set_trials(s.trials);
  out.set_seed(s.seed);
  out.set_lease_ms(lease_ms_);
  out.set_cold_weights(best->stored.tasks[best_task].cold_weights);
  return out;
}

Refusal JobBoard::Renew(const std::string& lease_id, const std::string& worker_id, int64_t now_ms) {
  auto it = leases_.find(lease_id);
  if (it == leases_.end()) {
    return {Refusal::kExpired, "lease '" + lease_id + "' is over (expired, reported or cancelled)"};
  }
  if (it->second.stored.worker_id != worker_id) {
    return {Refusal::kNotYours, "lease '" + lease_id + "' belongs to another worker"};
  }
  it->second.expires_ms = now_ms + lease_ms_;
  it->second.stored.expires_ms = it->second.expires_ms;
  store_->RenewLease(lease_id, it->second.expires_ms);
  return {};
}

Refusal JobBoard::LeaseTask(const std::string& lease_id, const std::string& worker_id,
                            std::string* workload_key, std::string* target) const {
  auto it = leases_.find(lease_id);
  if (it == leases_.end()) {
    return {Refusal::kExpired, "lease '" + lease_id + "' is over (expired, reported or cancelled)"};
  }
  if (it->second.stored.worker_id != worker_id) {
    return {Refusal::kNotYours, "lease '" + lease_id + "' belongs to another worker"};
  }
  const Job& job = jobs_.at(it->second.stored.job_id);
  *workload_key = job.tasks[it->second.stored.task].workload_key;
  *target = job.stored.target;
  return {};
}

void JobBoard::EndLease(const std::string& lease_id) {
  auto it = leases_.find(lease_id);
  if (it == leases_.end()) return;
  Job& job = jobs_.at(it->second.stored.job_id);
  job.tasks[it->second.stored.task].leased -= it->second.stored.trials;
  leases_.erase(it);
}

void JobBoard::DropLeases(Job& job) {
  for (auto lease = leases_.begin(); lease != leases_.end();) {
    if (lease->second.stored.job_id == job.stored.job_id) {
      lease = leases_.erase(lease);
    } else {
      ++lease;
    }
  }
  for (Task& task : job.tasks) task.leased = 0;
}

void JobBoard::FinishIfDone(Job& job) {
  if (!job.active()) return;
  for (const Task& task : job.tasks) {
    if (!task.finished()) return;
  }
  job.stored.state = "done";
  store_->SetState(job.stored.job_id, "done");
  DropLeases(job);  // batches of an exhausted task still out: nothing left for them to add
  TESSERA_LOG(kInfo) << "job done job=" << job.stored.job_id;
}

ReportResult JobBoard::Report(const jobs::v1::ReportRequest& request, int64_t now_unix_ms) {
  ReportResult result;
  auto it = leases_.find(request.lease_id());
  if (it == leases_.end()) {
    auto earlier = reports_.find(request.lease_id());
    if (earlier != reports_.end()) {
      result.reply = earlier->second;  // a retry: the records are in already
      return result;
    }
    result.refusal = {Refusal::kExpired, "lease '" + request.lease_id() +
                                             "' is over (expired or cancelled): its batch goes "
                                             "to another worker"};
    return result;
  }
  const StoredLease lease = it->second.stored;
  if (lease.worker_id != request.worker_id()) {
    result.refusal = {Refusal::kNotYours,
                      "lease '" + request.lease_id() + "' belongs to another worker"};
    return result;
  }
  Job& job = jobs_.at(lease.job_id);
  Task& task = job.tasks[lease.task];
  if (request.records_size() > lease.trials) {
    result.refusal = {Refusal::kInvalid, "the lease is for " + std::to_string(lease.trials) +
                                             " trials, the report has " +
                                             std::to_string(request.records_size()) + " records"};
    return result;
  }
  for (int i = 0; i < request.records_size(); ++i) {
    const tuning::MeasureRecord& r = request.records(i);
    std::string where = "record " + std::to_string(i + 1) + ": ";
    std::string why = RecordProblem(r, task.workload_key, job.stored.target, job.stored.rpc_key);
    if (!why.empty()) {
      result.refusal = {Refusal::kInvalid, where + why};
      return result;
    }
  }
  std::set<int64_t> in_report;
  for (const tuning::MeasureRecord& r : request.records()) {
    if (r.error_kind() == tuning::DEVICE_LOST) {
      result.reply.set_device_lost(result.reply.device_lost() + 1);
    } else if (task.configs.count(r.config_index()) != 0 ||
               !in_report.insert(r.config_index()).second ||
               task.done + static_cast<int64_t>(result.accepted.size()) >= task.trials) {
      result.reply.set_duplicates(result.reply.duplicates() + 1);
    } else {
      result.accepted.push_back(r);
    }
  }
  result.reply.set_accepted(static_cast<int32_t>(result.accepted.size()));
  store_->SaveReport(lease, result.accepted, result.reply, request.exhausted(), now_unix_ms);
  reports_[lease.lease_id] = result.reply;
  for (const tuning::MeasureRecord& r : result.accepted) {
    AddRecord(job, lease.task, r.config_index(), records::MeanCost(r), now_unix_ms);
  }
  if (request.exhausted()) task.exhausted = true;
  EndLease(lease.lease_id);
  FinishIfDone(job);
  TESSERA_LOG(kInfo) << "batch reported job=" << lease.job_id << " task=" << task.workload_key
                     << " accepted=" << result.reply.accepted()
                     << " duplicates=" << result.reply.duplicates()
                     << " device_lost=" << result.reply.device_lost();
  return result;
}

void JobBoard::Expire(int64_t now_ms) {
  std::vector<std::string> expired;
  for (const auto& [id, lease] : leases_) {
    if (now_ms >= lease.expires_ms) expired.push_back(id);
  }
  for (const std::string& id : expired) {
    const StoredLease& lease = leases_.at(id).stored;
    TESSERA_LOG(kWarning) << "lease expired job=" << lease.job_id << " worker=" << lease.worker_id
                          << " trials=" << lease.trials << " (not renewed for " << lease_ms_
                          << " ms): the batch goes to another worker";
    store_->DeleteLease(id);
    EndLease(id);
  }
}

}  // namespace tracker
}  // namespace tessera
