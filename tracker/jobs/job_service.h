/// \file
/// `JobService`: the gRPC face of the tracker's tuning jobs (`proto/jobs.proto`). It wraps a
/// `JobBoard` with a lock, checks the tracker's token on every call, validates input, and writes
/// the records that workers report into the tracker's shared tuning log. On a shared (PostgreSQL)
/// job store, each call also holds the store's lock, loads the board again when another tracker
/// changed it, and times leases on the database's clock: several trackers serve one set of jobs.
#ifndef TESSERA_TRACKER_JOBS_JOB_SERVICE_H_
#define TESSERA_TRACKER_JOBS_JOB_SERVICE_H_

#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "common/clock.h"
#include "proto/jobs.grpc.pb.h"
#include "tracker/jobs/job_board.h"
#include "tracker/jobs/job_store.h"
#include "tracker/shared_log.h"

namespace tessera {
namespace tracker {

/// Most records `History` returns (the newest).
constexpr int64_t kMaxHistoryRecords = 5000;

/// The tracker's job RPCs.
class JobService final : public jobs::v1::JobService::Service {
 public:
  /// Jobs kept in `jobs_db` (a `postgresql://` URI that other trackers may share) or, when it is
  /// empty, in `state_dir/jobs.db` (a private temporary directory when that is empty too);
  /// records written to `log`, which outlives the service. `token` as for `AuthorizeCall`.
  /// Records a crash left out of the log are written to it now.
  JobService(const std::string& state_dir, std::string token, SharedLog* log, int64_t lease_ms,
             std::shared_ptr<const Clock> clock = SystemClock(), const std::string& jobs_db = "");

  /// Leases batches only of jobs whose device key `brokers` accepts: on a shared store, each
  /// tracker's workers measure on that tracker's devices, so it leases only what they can measure.
  /// Call before serving.
  void LeaseOnlyFor(std::function<bool(const std::string& device_key)> brokers) {
    brokers_ = std::move(brokers);
  }

  /// Adds a job; INVALID_ARGUMENT naming what is wrong.
  grpc::Status Submit(grpc::ServerContext* context, const jobs::v1::SubmitRequest* request,
                      jobs::v1::SubmitReply* reply) override;
  /// Every job.
  grpc::Status List(grpc::ServerContext* context, const jobs::v1::ListRequest* request,
                    jobs::v1::JobList* reply) override;
  /// Every job now, as `List` returns it (the dashboard reads it without an RPC).
  jobs::v1::JobList Snapshot();
  /// One job; NOT_FOUND when unknown.
  grpc::Status Status(grpc::ServerContext* context, const jobs::v1::JobRef* request,
                      jobs::v1::JobStatus* reply) override;
  /// Cancels a job and ends its leases.
  grpc::Status Cancel(grpc::ServerContext* context, const jobs::v1::JobRef* request,
                      jobs::v1::JobStatus* reply) override;
  /// The next batch for a worker.
  grpc::Status Lease(grpc::ServerContext* context, const jobs::v1::LeaseRequest* request,
                     jobs::v1::LeaseReply* reply) override;
  /// Extends a lease; ABORTED when it is over, PERMISSION_DENIED when it is another worker's.
  grpc::Status Renew(grpc::ServerContext* context, const jobs::v1::RenewRequest* request,
                     jobs::v1::RenewReply* reply) override;
  /// Takes a batch's records (idempotent).
  grpc::Status Report(grpc::ServerContext* context, const jobs::v1::ReportRequest* request,
                      jobs::v1::ReportReply* reply) override;
  /// The shared log's records of a lease's template on its target.
  grpc::Status History(grpc::ServerContext* context, const jobs::v1::HistoryRequest* request,
                       jobs::v1::HistoryReply* reply) override;

 private:
  void ReplayUnlogged();
  // The clock leases run on: the database's for a shared store, else the steady clock.
  int64_t LeaseClock();
  // Runs `call` holding the jobs: the service's mutex, the shared store's lock, and the board
  // loaded again when another tracker changed the store; a failing job store is UNAVAILABLE,
  // not a crash.
  template <typename Call>
  grpc::Status Serve(Call&& call);

  std::unique_ptr<TempDir> scratch_;  // only without a state directory
  std::unique_ptr<JobStore> store_;
  const std::string token_;
  SharedLog* log_;
  std::shared_ptr<const Clock> clock_;
  int64_t lease_ms_;
  std::function<bool(const std::string&)> brokers_;  // null: every job
  std::mutex mu_;
  std::unique_ptr<JobBoard> board_;
  bool reload_ = false;  // a call failed half-way: load the board again from the store
};

}  // namespace tracker
}  // namespace tessera

#endif  // TESSERA_TRACKER_JOBS_JOB_SERVICE_H_
