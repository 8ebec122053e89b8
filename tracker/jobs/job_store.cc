#include "tracker/jobs/job_store.h"

#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "common/error.h"
#include "common/postgres.h"
#include "records/tuning_log.h"
#include "tracker/state_sql.h"

namespace tessera {
namespace tracker {
namespace {

// Trackers sharing one database take this session lock around every call that reads and writes
// jobs, and the transaction lock of the same key while they create the tables.
constexpr int64_t kJobsLock = 0x7465737365726903;  // "tessera" + 3

// Columns are named in every query (never `SELECT *`) and `"user"` is quoted: it is a reserved
// word in PostgreSQL.
constexpr const char* kSqliteSchema =
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
    "CREATE TABLE IF NOT EXISTS job_reports (lease_id TEXT PRIMARY KEY, reply BLOB NOT NULL);"
    "CREATE TABLE IF NOT EXISTS job_meta (id INTEGER PRIMARY KEY CHECK (id = 1), "
    "version INTEGER NOT NULL, leases_issued INTEGER NOT NULL);"
    "INSERT OR IGNORE INTO job_meta VALUES (1, 0, 0);";

// The same tables; `id` orders the records as SQLite's rowid does.
constexpr const char* kPostgresSchema =
    "CREATE TABLE IF NOT EXISTS jobs (job_id TEXT PRIMARY KEY, seq BIGINT NOT NULL, "
    "\"user\" TEXT NOT NULL, priority BIGINT NOT NULL, target TEXT NOT NULL, "
    "rpc_key TEXT NOT NULL, tuner TEXT NOT NULL, batch_size BIGINT NOT NULL, "
    "name TEXT NOT NULL, state TEXT NOT NULL, submitted_unix_ms BIGINT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS job_tasks (job_id TEXT NOT NULL, task BIGINT NOT NULL, "
    "workload_key TEXT NOT NULL, trials BIGINT NOT NULL, exhausted BIGINT NOT NULL, "
    "started_unix_ms BIGINT NOT NULL, weight BIGINT NOT NULL DEFAULT 1, "
    "alternative_to TEXT NOT NULL DEFAULT '', PRIMARY KEY (job_id, task));"
    // Tasks timed with cold weights came after the first shared stores.
    "ALTER TABLE job_tasks ADD COLUMN IF NOT EXISTS cold_weights BIGINT NOT NULL DEFAULT 0;"
    "CREATE TABLE IF NOT EXISTS job_leases (lease_id TEXT PRIMARY KEY, job_id TEXT NOT NULL, "
    "task BIGINT NOT NULL, worker_id TEXT NOT NULL, trials BIGINT NOT NULL, "
    "seed BIGINT NOT NULL, expires_ms BIGINT NOT NULL DEFAULT 0);"
    "CREATE TABLE IF NOT EXISTS job_records (id BIGSERIAL, job_id TEXT NOT NULL, "
    "task BIGINT NOT NULL, config_index BIGINT NOT NULL, lease_id TEXT NOT NULL, "
    "cost DOUBLE PRECISION, unix_ms BIGINT NOT NULL, logged BIGINT NOT NULL, "
    "record BYTEA NOT NULL, PRIMARY KEY (job_id, task, config_index));"
    "CREATE TABLE IF NOT EXISTS job_reports (lease_id TEXT PRIMARY KEY, reply BYTEA NOT NULL);"
    "CREATE TABLE IF NOT EXISTS job_meta (id BIGINT PRIMARY KEY CHECK (id = 1), "
    "version BIGINT NOT NULL, leases_issued BIGINT NOT NULL);"
    "INSERT INTO job_meta VALUES (1, 0, 0) ON CONFLICT DO NOTHING;";

}  // namespace

JobStore::JobStore(const std::string& dir, const std::string& location) {
  if (IsPostgresUri(location)) {
    sql_ = OpenPostgresState(location, "tracker jobs");
    CreatePostgresSchema();
  } else {
    if (!location.empty()) {
      throw ConfigError("--jobs-db '" + location +
                        "': expected postgresql://USER@HOST/DB (without it the jobs live in "
                        "--state DIR/jobs.db)");
    }
    sql_ = OpenSqliteState(dir, "jobs.db", "tracker jobs");
    CreateSqliteSchema();
  }
}

JobStore::~JobStore() = default;

void JobStore::CreateSqliteSchema() {
  sql_->Exec(kSqliteSchema);
  // Tasks' weights and alternatives came with the tuning curves on the dashboard, leases' ends
  // with shared stores, cold weights after them; older files weigh each task by 1, with no
  // alternatives, warm.
  std::set<std::string> columns;
  sql_->Query(
      "SELECT name FROM pragma_table_info('job_tasks') UNION ALL "
      "SELECT 'leases.' || name FROM pragma_table_info('job_leases')",
      {}, [&](const SqlRow& row) { columns.insert(row.Text(0)); });
  if (columns.count("weight") == 0) {
    sql_->Exec("ALTER TABLE job_tasks ADD COLUMN weight INTEGER NOT NULL DEFAULT 1;");
  }
  if (columns.count("alternative_to") == 0) {
    sql_->Exec("ALTER TABLE job_tasks ADD COLUMN alternative_to TEXT NOT NULL DEFAULT '';");
  }
  if (columns.count("cold_weights") == 0) {
    sql_->Exec("ALTER TABLE job_tasks ADD COLUMN cold_weights INTEGER NOT NULL DEFAULT 0;");
  }
  if (columns.count("leases.expires_ms") == 0) {
    sql_->Exec("ALTER TABLE job_leases ADD COLUMN expires_ms INTEGER NOT NULL DEFAULT 0;");
  }
}

// Two trackers starting at once must not both create the tables.
void JobStore::CreatePostgresSchema() {
  SqlTransaction transaction(*sql_, kJobsLock);
  sql_->Exec(kPostgresSchema);
  transaction.Commit();
}

bool JobStore::shared() const { return sql_->postgres(); }

const std::string& JobStore::where() const { return sql_->where(); }

JobStore::Lock::Lock(JobStore& store) : store_(store) {
  if (store_.shared()) store_.sql_->Query("SELECT pg_advisory_lock(?)", {kJobsLock});
}

JobStore::Lock::~Lock() {
  if (!store_.shared()) return;
  try {
    store_.sql_->Query("SELECT pg_advisory_unlock(?)", {kJobsLock});
  } catch (...) {  // NOLINT: a broken connection has let go of its locks already
  }
}

bool JobStore::ChangedElsewhere() {
  return sql_->QueryInt("SELECT version FROM job_meta WHERE id = 1") != version_;
}

int64_t JobStore::NowMillis() {
  if (!shared()) throw InternalError("JobStore::NowMillis: only a shared store keeps the time");
  return sql_->QueryInt("SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint");
}

// Every write moves the version on, so that other trackers know to load again.
void JobStore::BumpVersion() {
  version_ = sql_->QueryInt(
      "UPDATE job_meta SET version = version + 1 WHERE id = 1 "
      "RETURNING version");
}

StoredJobs JobStore::Load() {
  StoredJobs out;
  sql_->Query("SELECT version, leases_issued FROM job_meta WHERE id = 1", {},
              [&](const SqlRow& row) {
                version_ = row.Int(0);
                out.leases_issued = static_cast<uint64_t>(row.Int(1));
              });
  sql_->Query(
      "SELECT job_id, seq, \"user\", priority, target, rpc_key, tuner, batch_size, name, state, "
      "submitted_unix_ms FROM jobs ORDER BY seq",
      {}, [&](const SqlRow& row) {
        StoredJob job;
        job.job_id = row.Text(0);
        job.seq = row.Int(1);
        job.user = row.Text(2);
        job.priority = static_cast<int>(row.Int(3));
        job.target = row.Text(4);
        job.rpc_key = row.Text(5);
        job.tuner = row.Text(6);
        job.batch_size = static_cast<int>(row.Int(7));
        job.name = row.Text(8);
        job.state = row.Text(9);
        job.submitted_unix_ms = row.Int(10);
        out.jobs.push_back(std::move(job));
      });
  // Every job's tasks in one query: a shared store loads again whenever another tracker wrote,
  // and a query per job made that a round trip per job ever submitted.
  std::map<std::string, StoredJob*> by_id;
  for (StoredJob& job : out.jobs) by_id[job.job_id] = &job;
  sql_->Query(
      "SELECT job_id, workload_key, trials, exhausted, started_unix_ms, weight, alternative_to, "
      "cold_weights FROM job_tasks ORDER BY job_id, task",
      {}, [&](const SqlRow& row) {
        auto job = by_id.find(row.Text(0));
        if (job == by_id.end()) return;
        job->second->tasks.push_back({row.Text(1), row.Int(2), row.Int(3) != 0, row.Int(4),
                                      row.Int(5), row.Text(6), row.Int(7) != 0});
      });
  sql_->Query("SELECT lease_id, job_id, task, worker_id, trials, seed, expires_ms FROM job_leases",
              {}, [&](const SqlRow& row) {
                StoredLease lease;
                lease.lease_id = row.Text(0);
                lease.job_id = row.Text(1);
                lease.task = static_cast<int>(row.Int(2));
                lease.worker_id = row.Text(3);
                lease.trials = static_cast<int>(row.Int(4));
                lease.seed = static_cast<uint64_t>(row.Int(5));
                lease.expires_ms = row.Int(6);
                out.leases.push_back(lease);
              });
  const std::string order = shared() ? "id" : "rowid";
  sql_->Query(
      "SELECT job_id, task, config_index, cost, unix_ms, logged, record FROM job_records "
      "ORDER BY " +
          order,
      {}, [&](const SqlRow& row) {
        StoredRecord record;
        record.job_id = row.Text(0);
        record.task = static_cast<int>(row.Int(1));
        record.config_index = row.Int(2);
        record.cost = row.IsNull(3) ? std::numeric_limits<double>::infinity() : row.Real(3);
        record.unix_ms = row.Int(4);
        record.logged = row.Int(5) != 0;
        if (!record.logged && !record.record.ParseFromString(row.Bytes(6))) {
          throw ConfigError("tracker jobs '" + where() + "': a record of job '" + record.job_id +
                            "' cannot be parsed (the store is damaged)");
        }
        out.records.push_back(std::move(record));
      });
  sql_->Query("SELECT lease_id, reply FROM job_reports", {}, [&](const SqlRow& row) {
    jobs::v1::ReportReply reply;
    reply.ParseFromString(row.Bytes(1));
    out.reports.emplace_back(row.Text(0), reply);
  });
  return out;
}

void JobStore::SaveJob(const StoredJob& job) {
  SqlTransaction transaction(*sql_);
  sql_->Query(
      "INSERT INTO jobs (job_id, seq, \"user\", priority, target, rpc_key, tuner, batch_size, "
      "name, state, submitted_unix_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      {job.job_id, job.seq, job.user, job.priority, job.target, job.rpc_key, job.tuner,
       job.batch_size, job.name, job.state, job.submitted_unix_ms});
  for (size_t i = 0; i < job.tasks.size(); ++i) {
    sql_->Query(
        "INSERT INTO job_tasks (job_id, task, workload_key, trials, exhausted, started_unix_ms, "
        "weight, alternative_to, cold_weights) VALUES (?, ?, ?, ?, 0, 0, ?, ?, ?)",
        {job.job_id, static_cast<int64_t>(i), job.tasks[i].workload_key, job.tasks[i].trials,
         job.tasks[i].weight, job.tasks[i].alternative_to,
         int64_t{job.tasks[i].cold_weights ? 1 : 0}});
  }
  BumpVersion();
  transaction.Commit();
}

void JobStore::SetState(const std::string& job_id, const std::string& state) {
  SqlTransaction transaction(*sql_);
  sql_->Query("UPDATE jobs SET state = ? WHERE job_id = ?", {state, job_id});
  if (state == "cancelled" || state == "done") {
    sql_->Query("DELETE FROM job_leases WHERE job_id = ?", {job_id});
  }
  BumpVersion();
  transaction.Commit();
}

void JobStore::SaveLease(const StoredLease& lease, int64_t task_started_unix_ms,
                         uint64_t leases_issued) {
  SqlTransaction transaction(*sql_);
  sql_->Query(
      "INSERT INTO job_leases (lease_id, job_id, task, worker_id, trials, seed, expires_ms) "
      "VALUES (?, ?, ?, ?, ?, ?, ?)",
      {lease.lease_id, lease.job_id, lease.task, lease.worker_id, lease.trials,
       static_cast<int64_t>(lease.seed), lease.expires_ms});
  sql_->Query(
      "UPDATE job_tasks SET started_unix_ms = ? WHERE job_id = ? AND task = ? AND "
      "started_unix_ms = 0",
      {task_started_unix_ms, lease.job_id, lease.task});
  sql_->Query("UPDATE job_meta SET leases_issued = ? WHERE id = 1",
              {static_cast<int64_t>(leases_issued)});
  BumpVersion();
  transaction.Commit();
}

void JobStore::RenewLease(const std::string& lease_id, int64_t expires_ms) {
  if (!shared()) return;  // a restarted tracker's clock starts again: it gives every lease grace
  SqlTransaction transaction(*sql_);
  sql_->Query("UPDATE job_leases SET expires_ms = ? WHERE lease_id = ?", {expires_ms, lease_id});
  BumpVersion();
  transaction.Commit();
}

void JobStore::DeleteLease(const std::string& lease_id) {
  SqlTransaction transaction(*sql_);
  sql_->Query("DELETE FROM job_leases WHERE lease_id = ?", {lease_id});
  BumpVersion();
  transaction.Commit();
}

void JobStore::SaveReport(const StoredLease& lease,
                          const std::vector<tuning::MeasureRecord>& records,
                          const jobs::v1::ReportReply& reply, bool exhausted, int64_t unix_ms) {
  SqlTransaction transaction(*sql_);
  for (const tuning::MeasureRecord& record : records) {
    const double cost = records::MeanCost(record);
    sql_->Query(
        "INSERT INTO job_records (job_id, task, config_index, lease_id, cost, unix_ms, logged, "
        "record) VALUES (?, ?, ?, ?, ?, ?, 0, ?)",
        {lease.job_id, lease.task, record.config_index(), lease.lease_id,
         std::isfinite(cost) ? SqlValue(cost) : SqlValue::Null(), unix_ms,
         SqlValue::Bytes(record.SerializeAsString())});
  }
  sql_->Query("INSERT INTO job_reports (lease_id, reply) VALUES (?, ?)",
              {lease.lease_id, SqlValue::Bytes(reply.SerializeAsString())});
  sql_->Query("DELETE FROM job_leases WHERE lease_id = ?", {lease.lease_id});
  if (exhausted) {
    sql_->Query("UPDATE job_tasks SET exhausted = 1 WHERE job_id = ? AND task = ?",
                {lease.job_id, lease.task});
  }
  BumpVersion();
  transaction.Commit();
}

void JobStore::MarkLogged(const std::string& lease_id) {
  SqlTransaction transaction(*sql_);
  sql_->Query("UPDATE job_records SET logged = 1, record = ? WHERE lease_id = ?",
              {SqlValue::Bytes(""), lease_id});
  BumpVersion();
  transaction.Commit();
}

void JobStore::MarkAllLogged() {
  SqlTransaction transaction(*sql_);
  sql_->Query("UPDATE job_records SET logged = 1, record = ? WHERE logged = 0",
              {SqlValue::Bytes("")});
  BumpVersion();
  transaction.Commit();
}

}  // namespace tracker
}  // namespace tessera
