/// \file
/// `JobBoard`: the tracker's tuning jobs without any networking. Users submit jobs (tasks with
/// trial shares, a target, a device key); workers lease a task's next batch by priority and fair
/// share, renew the lease on the steady clock, and report records, which are deduplicated per
/// (task, config index) and written through a `JobStore`. Every method takes the current steady
/// time (leases) and wall-clock time (what users see); the caller serialises access.
#ifndef TESSERA_TRACKER_JOBS_JOB_BOARD_H_
#define TESSERA_TRACKER_JOBS_JOB_BOARD_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "proto/jobs.pb.h"
#include "tracker/jobs/job_store.h"

namespace tessera {
namespace tracker {

/// Why a job or report was refused: empty when it was not.
struct Refusal {
  enum Kind { kNone, kInvalid, kNotFound, kExpired, kNotYours };
  Kind kind = kNone;
  std::string message;
  explicit operator bool() const { return kind != kNone; }
};

/// "" when `request` is a job the tracker accepts, else what is wrong with it (sizes, keys,
/// trial counts, target length).
std::string ValidateSubmit(const jobs::v1::SubmitRequest& request);

/// What a report did.
struct ReportResult {
  Refusal refusal;
  jobs::v1::ReportReply reply;
  /// The records to append to the shared log (new to the job); empty for a repeated report.
  std::vector<tuning::MeasureRecord> accepted;
};

/// Jobs, their leases and their progress.
class JobBoard {
 public:
  /// Loads what `store` holds (it outlives the board). Leases restored from a tracker's own
  /// SQLite file run for 2 × `lease_ms` + 5 s from `now_ms`, so that their workers can reconnect,
  /// renew and report; those of a shared store keep their end, `now_ms` being the database's clock.
  JobBoard(JobStore* store, int64_t lease_ms, int64_t now_ms);
  /// Keeps `previous`'s record of whom it served last, when a board is loaded again (the fair
  /// share is not stored).
  void InheritFairShare(const JobBoard& previous);

  /// Records the store has that are not in the shared log yet (a crash between the two).
  std::vector<tuning::MeasureRecord> UnloggedRecords() const { return unlogged_; }
  /// Forgets `UnloggedRecords` once they are in the log.
  void MarkAllLogged();

  /// Adds a validated job; returns its id. A request naming the id of a job it already submitted
  /// (a retry after a lost reply) returns that job's id and adds nothing; one naming the id of
  /// another submission returns "".
  std::string Submit(const jobs::v1::SubmitRequest& request, int64_t now_unix_ms);
  /// Every job, in submission order.
  jobs::v1::JobList List(int64_t now_unix_ms) const;
  /// One job, or nullopt when unknown.
  std::optional<jobs::v1::JobStatus> Status(const std::string& job_id, int64_t now_unix_ms) const;
  /// Cancels a job and ends its leases; false when unknown.
  bool Cancel(const std::string& job_id);

  /// The next batch for `worker_id`, or nullopt when no job has trials left to lease; with
  /// `brokers`, only of a job whose device key it accepts.
  std::optional<jobs::v1::WorkLease> Lease(
      const std::string& worker_id, int64_t now_ms, int64_t now_unix_ms,
      const std::function<bool(const std::string& device_key)>& brokers = nullptr);
  /// Extends a lease; a refusal when it expired, was cancelled, or belongs to another worker.
  Refusal Renew(const std::string& lease_id, const std::string& worker_id, int64_t now_ms);
  /// Takes a batch's records: validated against the lease, duplicates and lost devices skipped,
  /// stored in one transaction. A repeated report of a lease already reported gets its reply.
  ReportResult Report(const jobs::v1::ReportRequest& request, int64_t now_unix_ms);
  /// Ends the lease's report bookkeeping once its records are in the shared log.
  void MarkLogged(const std::string& lease_id) { store_->MarkLogged(lease_id); }
  /// The (workload, target) of a live lease of `worker_id`, for its history.
  Refusal LeaseTask(const std::string& lease_id, const std::string& worker_id,
                    std::string* workload_key, std::string* target) const;

  /// Ends leases not renewed within the lease time; their trials can be leased again.
  void Expire(int64_t now_ms);

 private:
  struct Task {
    std::string workload_key;
    int64_t trials = 0;
    int64_t done = 0, failed = 0, leased = 0;
    double best = 0;                                ///< 0: none
    std::vector<jobs::v1::BestPoint> improvements;  ///< each new best, in order
    bool exhausted = false;
    int64_t started_unix_ms = 0, last_unix_ms = 0;
    std::set<int64_t> configs;
    bool finished() const { return exhausted || done >= trials; }
  };
  struct Job {
    StoredJob stored;
    std::vector<Task> tasks;
    bool active() const { return stored.state == "queued" || stored.state == "running"; }
  };
  struct LiveLease {
    StoredLease stored;
    int64_t expires_ms = 0;
  };

  static bool SameSubmission(const Job& job, const jobs::v1::SubmitRequest& request);
  void AddRecord(Job& job, int task, int64_t config_index, double cost, int64_t unix_ms);
  void EndLease(const std::string& lease_id);
  void DropLeases(Job& job);
  void FinishIfDone(Job& job);
  jobs::v1::JobStatus StatusOf(const Job& job, int64_t now_unix_ms) const;

  JobStore* store_;
  int64_t lease_ms_;
  std::map<std::string, Job> jobs_;
  std::map<std::string, LiveLease> leases_;
  std::map<std::string, jobs::v1::ReportReply> reports_;  ///< lease id → reply, for retries
  std::map<std::string, uint64_t> last_served_;           ///< user → lease number
  uint64_t leases_issued_ = 0;
  int64_t next_seq_ = 1;
  std::vector<tuning::MeasureRecord> unlogged_;
};

}  // namespace tracker
}  // namespace tessera

#endif  // TESSERA_TRACKER_JOBS_JOB_BOARD_H_
