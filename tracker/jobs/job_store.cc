#include "tracker/jobs/job_store.h"

#include <cmath>
#include <limits>
#include <set>

#include "common/error.h"
#include "common/sqlite.h"
#include "records/tuning_log.h"
#include "tracker/state_db.h"

namespace tessera {
namespace tracker {
JobStore::JobStore(const std::string& dir) {
  db_ = OpenStateDatabase(dir, "jobs.db", "tracker jobs");
  db_->Exec(
      "CREATE TABLE IF NOT EXISTS jobs (job_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, "
      "user TEXT NOT NULL, priority INTEGER NOT NULL, target TEXT NOT NULL, "
      "rpc_key TEXT NOT NULL, tuner TEXT NOT NULL, batch_size INTEGER NOT NULL, "
      "name TEXT NOT NULL, state TEXT NOT NULL, submitted_unix_ms INTEGER NOT NULL);"
      "CREATE TABLE IF NOT EXISTS job_tasks (job_id TEXT NOT NULL, task INTEGER NOT NULL, "
      "workload_key TEXT NOT NULL, trials INTEGER NOT NULL, exhausted INTEGER NOT NULL, "
      "started_unix_ms INTEGER NOT NULL, PRIMARY KEY (job_id, task));"
      "CREATE TABLE IF NOT EXISTS job_leases (lease_id TEXT PRIMARY KEY, job_id TEXT NOT NULL, "
      "task INTEGER NOT NULL, worker_id TEXT NOT NULL, trials INTEGER NOT NULL, "
      "seed INTEGER NOT NULL);"
      "CREATE TABLE IF NOT EXISTS job_records (job_id TEXT NOT NULL, task INTEGER NOT NULL, "
      "config_index INTEGER NOT NULL, lease_id TEXT NOT NULL, cost REAL, "
      "unix_ms INTEGER NOT NULL, logged INTEGER NOT NULL, record BLOB NOT NULL, "
      "PRIMARY KEY (job_id, task, config_index));"
      "CREATE TABLE IF NOT EXISTS job_reports (lease_id TEXT PRIMARY KEY, reply BLOB NOT NULL);");
  // Tasks' weights and alternatives came with the tuning curves on the dashboard; older stores
  // weigh each task by 1, with no alternatives.
  std::set<std::string> columns;
  Statement table(*db_, "PRAGMA table_info(job_tasks)");
  while (table.Step()) columns.insert(table.Text(1));
  if (columns.count("weight") == 0) {
    db_->Exec("ALTER TABLE job_tasks ADD COLUMN weight INTEGER NOT NULL DEFAULT 1;");
  }
  if (columns.count("alternative_to") == 0) {
    db_->Exec("ALTER TABLE job_tasks ADD COLUMN alternative_to TEXT NOT NULL DEFAULT '';");
  }
}

JobStore::~JobStore() = default;

StoredJobs JobStore::Load() const {
  StoredJobs out;
  Statement jobs(*db_,
                 "SELECT job_id, seq, user, priority, target, rpc_key, tuner, batch_size, name, "
                 "state, submitted_unix_ms FROM jobs ORDER BY seq");
  while (jobs.Step()) {
    StoredJob job;
    job.job_id = jobs.Text(0);
    job.seq = jobs.Int(1);
    job.user = jobs.Text(2);
    job.priority = static_cast<int>(jobs.Int(3));
    job.target = jobs.Text(4);
    job.rpc_key = jobs.Text(5);
    job.tuner = jobs.Text(6);
    job.batch_size = static_cast<int>(jobs.Int(7));
    job.name = jobs.Text(8);
    job.state = jobs.Text(9);
    job.submitted_unix_ms = jobs.Int(10);
    Statement tasks(*db_,
                    "SELECT workload_key, trials, exhausted, started_unix_ms, weight, "
                    "alternative_to FROM job_tasks WHERE job_id = ? ORDER BY task");
    tasks.Bind(1, job.job_id);
    while (tasks.Step()) {
      job.tasks.push_back({tasks.Text(0), tasks.Int(1), tasks.Int(2) != 0, tasks.Int(3),
                           tasks.Int(4), tasks.Text(5)});
    }
    out.jobs.push_back(std::move(job));
  }
  Statement leases(*db_, "SELECT lease_id, job_id, task, worker_id, trials, seed FROM job_leases");
  while (leases.Step()) {
    StoredLease lease;
    lease.lease_id = leases.Text(0);
    lease.job_id = leases.Text(1);
    lease.task = static_cast<int>(leases.Int(2));
    lease.worker_id = leases.Text(3);
    lease.trials = static_cast<int>(leases.Int(4));
    lease.seed = static_cast<uint64_t>(leases.Int(5));
    out.leases.push_back(lease);
  }
  Statement records(*db_,
                    "SELECT job_id, task, config_index, cost, unix_ms, logged, record FROM "
                    "job_records ORDER BY rowid");
  while (records.Step()) {
    StoredRecord record;
    record.job_id = records.Text(0);
    record.task = static_cast<int>(records.Int(1));
    record.config_index = records.Int(2);
    record.cost = records.IsNull(3) ? std::numeric_limits<double>::infinity() : records.Real(3);
    record.unix_ms = records.Int(4);
    record.logged = records.Int(5) != 0;
    if (!record.logged && !record.record.ParseFromString(records.Text(6))) {
      throw ConfigError("tracker jobs '" + db_->path() + "': a record of job '" + record.job_id +
                        "' cannot be parsed (the file is damaged)");
    }
    out.records.push_back(std::move(record));
  }
  Statement reports(*db_, "SELECT lease_id, reply FROM job_reports");
  while (reports.Step()) {
    jobs::v1::ReportReply reply;
    reply.ParseFromString(reports.Text(1));
    out.reports.emplace_back(reports.Text(0), reply);
  }
  return out;
}

void JobStore::SaveJob(const StoredJob& job) {
  Transaction transaction(*db_);
  Statement(*db_, "INSERT INTO jobs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
      .Bind(1, job.job_id)
      .Bind(2, job.seq)
      .Bind(3, job.user)
      .Bind(4, static_cast<int64_t>(job.priority))
      .Bind(5, job.target)
      .Bind(6, job.rpc_key)
      .Bind(7, job.tuner)
      .Bind(8, static_cast<int64_t>(job.batch_size))
      .Bind(9, job.name)
      .Bind(10, job.state)
      .Bind(11, job.submitted_unix_ms)
      .Step();
  Statement task(*db_,
                 "INSERT INTO job_tasks (job_id, task, workload_key, trials, exhausted, "
                 "started_unix_ms, weight, alternative_to) VALUES (?, ?, ?, ?, 0, 0, ?, ?)");
  for (size_t i = 0; i < job.tasks.size(); ++i) {
    task.Bind(1, job.job_id)
        .Bind(2, static_cast<int64_t>(i))
        .Bind(3, job.tasks[i].workload_key)
        .Bind(4, job.tasks[i].trials)
        .Bind(5, job.tasks[i].weight)
        .Bind(6, job.tasks[i].alternative_to)
        .Run();
  }
  transaction.Commit();
}

void JobStore::SetState(const std::string& job_id, const std::string& state) {
  Transaction transaction(*db_);
  Statement(*db_, "UPDATE jobs SET state = ? WHERE job_id = ?")
      .Bind(1, state)
      .Bind(2, job_id)
      .Step();
  if (state == "cancelled" || state == "done") {
    Statement(*db_, "DELETE FROM job_leases WHERE job_id = ?").Bind(1, job_id).Step();
  }
  transaction.Commit();
}

void JobStore::SaveLease(const StoredLease& lease, int64_t task_started_unix_ms) {
  Transaction transaction(*db_);
  Statement(*db_, "INSERT INTO job_leases VALUES (?, ?, ?, ?, ?, ?)")
      .Bind(1, lease.lease_id)
      .Bind(2, lease.job_id)
      .Bind(3, static_cast<int64_t>(lease.task))
      .Bind(4, lease.worker_id)
      .Bind(5, static_cast<int64_t>(lease.trials))
      .Bind(6, static_cast<int64_t>(lease.seed))
      .Step();
  Statement(*db_,
            "UPDATE job_tasks SET started_unix_ms = ? WHERE job_id = ? AND task = ? AND "
            "started_unix_ms = 0")
      .Bind(1, task_started_unix_ms)
      .Bind(2, lease.job_id)
      .Bind(3, static_cast<int64_t>(lease.task))
      .Step();
  transaction.Commit();
}

void JobStore::DeleteLease(const std::string& lease_id) {
  Statement(*db_, "DELETE FROM job_leases WHERE lease_id = ?").Bind(1, lease_id).Step();
}

void JobStore::SaveReport(const StoredLease& lease,
                          const std::vector<tuning::MeasureRecord>& records,
                          const jobs::v1::ReportReply& reply, bool exhausted, int64_t unix_ms) {
  Transaction transaction(*db_);
  Statement insert(*db_, "INSERT INTO job_records VALUES (?, ?, ?, ?, ?, ?, 0, ?)");
  for (const tuning::MeasureRecord& record : records) {
    insert.Bind(1, lease.job_id)
        .Bind(2, static_cast<int64_t>(lease.task))
        .Bind(3, record.config_index())
        .Bind(4, lease.lease_id);
    const double cost = records::MeanCost(record);
    if (std::isfinite(cost)) {
      insert.Bind(5, cost);
    } else {
      insert.BindNull(5);
    }
    insert.Bind(6, unix_ms).BindBlob(7, record.SerializeAsString()).Run();
  }
  Statement(*db_, "INSERT INTO job_reports VALUES (?, ?)")
      .Bind(1, lease.lease_id)
      .BindBlob(2, reply.SerializeAsString())
      .Step();
  Statement(*db_, "DELETE FROM job_leases WHERE lease_id = ?").Bind(1, lease.lease_id).Step();
  if (exhausted) {
    Statement(*db_, "UPDATE job_tasks SET exhausted = 1 WHERE job_id = ? AND task = ?")
        .Bind(1, lease.job_id)
        .Bind(2, static_cast<int64_t>(lease.task))
        .Step();
  }
  transaction.Commit();
}

void JobStore::MarkLogged(const std::string& lease_id) {
  Statement(*db_, "UPDATE job_records SET logged = 1, record = x'' WHERE lease_id = ?")
      .Bind(1, lease_id)
      .Step();
}

void JobStore::MarkAllLogged() {
  db_->Exec("UPDATE job_records SET logged = 1, record = x'' WHERE logged = 0");
}

}  // namespace tracker
}  // namespace tessera
