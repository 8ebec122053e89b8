#include "tuner/worker/job_worker.h"

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "common/error.h"
#include "common/file.h"
#include "common/log.h"
#include "compiler/task/task.h"
#include "fleet/secrets.h"
#include "records/tuning_log.h"
#include "tuner/tune/tune_task.h"

namespace tessera {
namespace tuner {
namespace {

// Renews a lease every third of its time until stopped; remembers when the tracker says it is
// over (the batch is then someone else's, and its report will be refused).
class Renewer {
 public:
  Renewer(fleet::JobClient& client, const jobs::v1::WorkLease& lease, const std::string& worker)
      : thread_([this, &client, lease, worker] {
          std::unique_lock<std::mutex> lock(mu_);
          const auto period = std::chrono::milliseconds(std::max<int64_t>(lease.lease_ms() / 3, 1));
          while (!done_) {
            if (changed_.wait_for(lock, period, [this] { return done_; })) break;
            lock.unlock();
            bool alive = true;
            try {
              alive = client.Renew(lease.lease_id(), worker);
            } catch (const std::exception& error) {
              TESSERA_LOG(kWarning)
                  << "worker: cannot renew lease " << lease.lease_id() << ": " << error.what();
            }
            lock.lock();
            if (!alive) {
              over_ = true;
              break;
            }
          }
        }) {}
  ~Renewer() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }
  bool over() {
    std::lock_guard<std::mutex> lock(mu_);
    return over_;
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  bool done_ = false;
  bool over_ = false;
  std::thread thread_;  // last: starts after the members it uses
};

}  // namespace

std::string DefaultWorkerId() {
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  return std::string(host) + "-" + std::to_string(getpid()) + "-" + fleet::RandomHexId(3);
}

BatchOutcome RunBatch(fleet::JobClient& client, const jobs::v1::WorkLease& lease,
                      const std::string& worker_id, const WorkerOptions& options) {
  BatchOutcome outcome;
  outcome.lease = lease;
  Renewer renewer(client, lease, worker_id);
  jobs::v1::ReportRequest report;
  report.set_lease_id(lease.lease_id());
  report.set_worker_id(worker_id);
  try {
    task::Task task(lease.workload_key(), lease.target());
    CheckTarget(task.target());
    // The batch searches over what the team measured so far: this task's records (never
    // measured again) and its template's other shapes (transfer).
    TempDir scratch("tessera-worker");
    auto log = records::TuningLog::Open(scratch.path() + "/history.db");
    const jobs::v1::HistoryReply reply = client.History(lease.lease_id(), worker_id);
    log->AppendBatch({reply.records().begin(), reply.records().end()});
    records::RecordFilter mine;
    mine.workload_key = task.workload_key();
    mine.target = task.target();
    const size_t before = log->List(mine).size();

    TuneTaskOptions tune;
    tune.trials = lease.trials();
    tune.tuner = lease.tuner();
    tune.batch_size = lease.trials();
    tune.seed = lease.seed();
    tune.measure = options.measure;
    tune.run = options.run;
    tune.run.cold_weights = lease.cold_weights();
    tune.rpc_tracker = client.address();
    tune.rpc_key = lease.rpc_key();
    tune.rpc_token = options.tracker.token;
    TuneTaskResult result = TuneTask(task, log.get(), tune);
    std::vector<tuning::MeasureRecord> records = log->List(mine);
    for (size_t i = before; i < records.size(); ++i) *report.add_records() = records[i];
    report.set_exhausted(result.search.space_exhausted);
  } catch (const UserError& error) {
    // This task cannot be tuned by any worker (a template or target this build does not know):
    // the job stops asking for it instead of failing every worker in turn.
    outcome.error = error.what();
    report.clear_records();
    report.set_exhausted(true);
  }
  outcome.measured = report.records_size();
  if (renewer.over()) return outcome;  // cancelled or expired: the batch is someone else's
  outcome.reply = client.Report(report);
  return outcome;
}

int64_t RunWorker(const WorkerOptions& options, const std::atomic<bool>& stop,
                  const std::function<void(const BatchOutcome&)>& on_batch) {
  const std::string worker_id = options.worker_id.empty() ? DefaultWorkerId() : options.worker_id;
  fleet::JobClient client(options.tracker);
  int64_t batches = 0;
  while (!stop) {
    std::optional<jobs::v1::WorkLease> lease = client.Lease(worker_id);
    if (!lease) {
      if (options.exit_when_idle) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(options.idle_poll_ms));
      continue;
    }
    BatchOutcome outcome;
    try {
      outcome = RunBatch(client, *lease, worker_id, options);
    } catch (const fleet::FleetError& error) {
      // The tracker refused this batch's calls (the lease ended under it): the batch is
      // someone else's now. A tracker gone for good ends the worker.
      if (error.code() == fleet::FleetErrorCode::kUnavailable) throw;
      TESSERA_LOG(kWarning) << "worker: batch of job " << lease->job_id()
                            << " dropped: " << error.what();
      outcome.lease = *lease;
    }
    ++batches;
    if (on_batch) on_batch(outcome);
  }
  return batches;
}

}  // namespace tuner
}  // namespace tessera
