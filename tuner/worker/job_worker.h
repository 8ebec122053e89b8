/// \file
/// The tuner worker behind `tessera worker`: it leases a task's next batch of trials from the
/// tracker's job service, renews the lease while it works, learns from the shared log's records
/// of the task's template (resume and transfer), proposes candidates with the job's search
/// strategy, builds them here and measures them on fleet devices of the job's key, then reports
/// the records. A worker that dies loses only its batch: the lease expires and another takes it.
#ifndef TESSERA_TUNER_WORKER_JOB_WORKER_H_
#define TESSERA_TUNER_WORKER_JOB_WORKER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "fleet/client/job_client.h"
#include "tuner/measure/local_measurer.h"
#include "tuner/measure/task_measure.h"

namespace tessera {
namespace tuner {

/// Options of a worker.
struct WorkerOptions {
  fleet::TrackerOptions tracker;     ///< where the jobs and the devices are
  std::string worker_id;             ///< empty: HOST-PID-RANDOM
  int64_t idle_poll_ms = 1000;       ///< how often to ask again when there is no work
  bool exit_when_idle = false;       ///< return when the tracker has no work (tests, benchmarks)
  int64_t queue_timeout_ms = 60000;  ///< wait this long for a device
  LocalMeasureOptions measure;       ///< building: parallelism, time limit, work directory
  RunOptions run;                    ///< timing and checking
};

/// What became of one leased batch.
struct BatchOutcome {
  jobs::v1::WorkLease lease;
  int64_t measured = 0;                        ///< records made
  std::optional<jobs::v1::ReportReply> reply;  ///< nullopt: the lease was over, records dropped
  std::string error;                           ///< the task could not be tuned here (why)
};

/// Tunes one leased batch and reports it.
BatchOutcome RunBatch(fleet::JobClient& client, const jobs::v1::WorkLease& lease,
                      const std::string& worker_id, const WorkerOptions& options);

/// Leases and runs batches until `stop` is set (or, with `exit_when_idle`, until there is no
/// work); `on_batch` sees every batch. Returns the number of batches run. Throws `ExternalError`
/// when the tracker stays unreachable past the retry window.
int64_t RunWorker(const WorkerOptions& options, const std::atomic<bool>& stop,
                  const std::function<void(const BatchOutcome&)>& on_batch = nullptr);

/// A worker id for this process: HOST-PID-RANDOM.
std::string DefaultWorkerId();

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_WORKER_JOB_WORKER_H_
