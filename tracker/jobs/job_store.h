/// \file
/// `JobStore`: the tuning jobs on disk (SQLite `DIR/jobs.db` beside the tracker's state, or a
/// PostgreSQL database that several trackers share): jobs and their tasks, the leases out with
/// workers, which configurations each job received (with their cost), and the replies to reports
/// already taken, so that a restarted tracker loses no job, record or lease. A report's records are
/// written here in one transaction with the end of its lease, then into the shared log, then
/// dropped here: a crash between the two writes leaves them here for the next start to put into the
/// log.
///
/// In PostgreSQL the store is shared: each tracker takes `Lock` around a call, reloads its board
/// when `ChangedElsewhere`, and times leases on the database's clock (`NowMillis`), so that a
/// lease taken through one tracker is renewed, reported or expired through any other.
#ifndef TESSERA_TRACKER_JOBS_JOB_STORE_H_
#define TESSERA_TRACKER_JOBS_JOB_STORE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "proto/jobs.pb.h"
#include "proto/tuning.pb.h"

namespace tessera {

namespace tracker {

/// One task of a job as stored.
struct StoredTask {
  std::string workload_key;
  int64_t trials = 0;
  bool exhausted = false;
  int64_t started_unix_ms = 0;  ///< first lease (0: none yet)
  int64_t weight = 1;           ///< kernels of the model that run it (`TaskSpec::weight`)
  std::string alternative_to;   ///< `TaskSpec::alternative_to`
  bool cold_weights = false;    ///< `TaskSpec::cold_weights`
};

/// A job as stored.
struct StoredJob {
  std::string job_id;
  int64_t seq = 0;  ///< submission order
  std::string user, target, rpc_key, tuner, name, state;
  int priority = 0;
  int batch_size = 0;
  int64_t submitted_unix_ms = 0;
  std::vector<StoredTask> tasks;
};

/// A lease out with a worker.
struct StoredLease {
  std::string lease_id, job_id, worker_id;
  int task = 0;
  int trials = 0;
  uint64_t seed = 0;
  int64_t expires_ms = 0;  ///< on the database's clock; kept only by a shared store
};

/// What a job keeps of a record it received: enough to count and rank it. The record itself
/// lives in the shared tuning log; the job holds a copy only until it is written there.
struct StoredRecord {
  std::string job_id;
  int task = 0;
  int64_t config_index = 0;
  double cost = 0;               ///< mean seconds; +infinity for a failed record
  int64_t unix_ms = 0;           ///< when the tracker received it
  bool logged = false;           ///< already in the shared tuning log
  tuning::MeasureRecord record;  ///< only while not `logged`
};

/// Everything `Load` reads back.
struct StoredJobs {
  std::vector<StoredJob> jobs;
  std::vector<StoredLease> leases;
  std::vector<StoredRecord> records;
  std::vector<std::pair<std::string, jobs::v1::ReportReply>> reports;  ///< by lease id
  uint64_t leases_issued = 0;  ///< leases ever issued (their seeds count on from it)
};

class TrackerSql;

/// The jobs database; not thread-safe (the job service calls it under its lock).
class JobStore {
 public:
  /// Opens (creating when missing) `location`, a `postgresql://` URI, or with an empty location
  /// `dir/jobs.db`. Throws `ConfigError` naming the path or URI when the directory or database
  /// cannot be used (then, and on any later failure).
  explicit JobStore(const std::string& dir, const std::string& location = "");
  ~JobStore();
  JobStore(const JobStore&) = delete;
  JobStore& operator=(const JobStore&) = delete;

  /// True when other trackers may write the store too (PostgreSQL).
  bool shared() const;
  /// The file or URI, for messages.
  const std::string& where() const;

  /// While alive, no other tracker's store calls a method of a shared store that writes
  /// (a session lock in the database, let go when the connection ends); nothing for SQLite.
  class Lock {
   public:
    /// Waits for the lock of `store`, which must outlive it.
    explicit Lock(JobStore& store);
    Lock(const Lock&) = delete;
    Lock& operator=(const Lock&) = delete;
    /// Lets go; never throws.
    ~Lock();

   private:
    JobStore& store_;
  };

  /// True when another tracker wrote the store since this one last loaded or wrote it.
  bool ChangedElsewhere();
  /// The database's clock in milliseconds (shared stores time their leases on it).
  int64_t NowMillis();

  /// Everything saved.
  StoredJobs Load();
  /// Saves a new job and its tasks.
  void SaveJob(const StoredJob& job);
  /// Sets a job's state ("cancelled", "done").
  void SetState(const std::string& job_id, const std::string& state);
  /// Saves a lease, the count of leases issued and, on a task's first lease, when the task
  /// started.
  void SaveLease(const StoredLease& lease, int64_t task_started_unix_ms, uint64_t leases_issued);
  /// Saves a renewed lease's new end (shared stores only keep it).
  void RenewLease(const std::string& lease_id, int64_t expires_ms);
  /// Forgets a lease (expired or cancelled).
  void DeleteLease(const std::string& lease_id);
  /// In one transaction: the report's records (not yet logged, received at `unix_ms`), its reply,
  /// the end of its lease and the task's exhaustion.
  void SaveReport(const StoredLease& lease, const std::vector<tuning::MeasureRecord>& records,
                  const jobs::v1::ReportReply& reply, bool exhausted, int64_t unix_ms);
  /// Marks the records of a lease's report as written to the shared log (and drops their copy).
  void MarkLogged(const std::string& lease_id);
  /// Marks every record as written to the shared log (and drops their copies).
  void MarkAllLogged();

 private:
  void CreateSqliteSchema();
  void CreatePostgresSchema();
  void BumpVersion();

  std::unique_ptr<TrackerSql> sql_;
  int64_t version_ = -1;  // of the last load or write through this store
};

}  // namespace tracker
}  // namespace tessera

#endif  // TESSERA_TRACKER_JOBS_JOB_STORE_H_
