// The job board's rules: validation, fair share, leases that expire, reports that are
// deduplicated and idempotent, and state that survives a restart.
#include "tracker/jobs/job_board.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "common/error.h"
#include "common/file.h"
#include "common/sqlite.h"
#include "tests/testing/postgres_server.h"

namespace tessera {
namespace tracker {
namespace {

constexpr int64_t kLeaseMs = 1000;

jobs::v1::SubmitRequest Job(const std::string& user = "ann", int trials = 4, int priority = 0) {
  jobs::v1::SubmitRequest request;
  jobs::v1::TaskSpec* task = request.add_tasks();
  task->set_workload_key("dense.x86(16,16,16,float32)");
  task->set_trials(trials);
  request.set_target("llvm");
  request.set_rpc_key("cpu");
  request.set_user(user);
  request.set_priority(priority);
  request.set_batch_size(2);
  return request;
}

tuning::MeasureRecord Record(int64_t config, tuning::ErrorKind error = tuning::OK) {
  tuning::MeasureRecord record;
  record.set_workload_key("dense.x86(16,16,16,float32)");
  record.set_target("llvm");
  record.set_device_key("cpu");
  record.set_config_index(config);
  record.set_error_kind(error);
  if (error == tuning::OK) record.add_costs(1e-3 * static_cast<double>(config + 1));
  return record;
}

jobs::v1::ReportRequest Report(const jobs::v1::WorkLease& lease,
                               const std::vector<int64_t>& configs) {
  jobs::v1::ReportRequest report;
  report.set_lease_id(lease.lease_id());
  report.set_worker_id("w1");
  for (int64_t c : configs) *report.add_records() = Record(c);
  return report;
}

// The board's rules hold on each store: a SQLite file of the tracker's own, and a PostgreSQL
// database (on a real server; skipped without one) that several trackers may share.
class JobBoardOnStoreTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string why_not;
    if (!testing::StoreLocation(GetParam(), &location_, &why_not)) GTEST_SKIP() << why_not;
  }
  // The store again, as a restarted tracker (or another tracker) opens it.
  std::unique_ptr<JobStore> Open() { return std::make_unique<JobStore>(dir_.path(), location_); }
  bool sqlite() const { return location_.empty(); }

  TempDir dir_;
  std::string location_;  // empty: SQLite in dir_
};

TEST(JobBoardTest, BadJobsAreRefusedWithTheReason) {
  jobs::v1::SubmitRequest request = Job();
  EXPECT_EQ(ValidateSubmit(request), "");
  request.mutable_tasks(0)->set_trials(0);
  EXPECT_EQ(ValidateSubmit(request),
            "task 'dense.x86(16,16,16,float32)': trials must be 1..1000000, got 0");
  request = Job();
  request.mutable_tasks(0)->set_workload_key("dense; DROP TABLE");
  EXPECT_NE(ValidateSubmit(request).find("not a workload key"), std::string::npos);
  request = Job();
  request.set_target(std::string(300, 'x'));
  EXPECT_NE(ValidateSubmit(request).find("must be 1..256 printable characters"), std::string::npos);
  request = Job();
  request.set_rpc_key("");
  EXPECT_NE(ValidateSubmit(request).find("rpc key ''"), std::string::npos);
  request = Job();
  request.clear_tasks();
  EXPECT_EQ(ValidateSubmit(request), "a job needs at least one task");
  request = Job();
  *request.add_tasks() = request.tasks(0);
  EXPECT_NE(ValidateSubmit(request).find("is given twice"), std::string::npos);
  request = Job();
  request.set_job_id("ABCDEF0123456789");
  EXPECT_EQ(ValidateSubmit(request), "job id 'ABCDEF0123456789': must be 16 lowercase hex digits");
  request = Job();
  request.set_tuner("magic");
  EXPECT_NE(ValidateSubmit(request).find("expected xgb, ga, random or grid"), std::string::npos);
}

// A client names its job before sending it, so a submission retried after a lost reply is the
// job it already created, also after a tracker restart; another submission cannot take the id.
TEST_P(JobBoardOnStoreTest, ARetriedSubmissionIsTheSameJob) {
  jobs::v1::SubmitRequest request = Job();
  request.set_job_id("0123456789abcdef");
  {
    auto store = Open();
    JobBoard board(store.get(), kLeaseMs, 0);
    EXPECT_EQ(board.Submit(request, 1), "0123456789abcdef");
    EXPECT_EQ(board.Submit(request, 2), "0123456789abcdef");
    EXPECT_EQ(board.List(3).jobs_size(), 1);
  }
  auto store = Open();
  JobBoard board(store.get(), kLeaseMs, 0);
  EXPECT_EQ(board.Submit(request, 4), "0123456789abcdef");
  jobs::v1::SubmitRequest other = Job("bob");
  other.set_job_id("0123456789abcdef");
  EXPECT_EQ(board.Submit(other, 5), "");
  EXPECT_EQ(board.List(6).jobs_size(), 1);
  other.clear_job_id();
  EXPECT_EQ(board.Submit(other, 7).size(), 16u);
  EXPECT_EQ(board.List(8).jobs_size(), 2);
}

TEST_P(JobBoardOnStoreTest, BatchesAreLeasedReportedAndDeduplicatedUntilTheJobIsDone) {
  auto store = Open();
  JobBoard board(store.get(), kLeaseMs, 0);
  std::string id = board.Submit(Job(), 1000);
  auto first = board.Lease("w1", 0, 1000);
  auto second = board.Lease("w2", 0, 1000);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->trials(), 2);
  EXPECT_EQ(second->trials(), 2);
  EXPECT_FALSE(board.Lease("w3", 0, 1000)) << "every trial is out";

  ReportResult r = board.Report(Report(*first, {1, 2}), 2000);
  ASSERT_FALSE(r.refusal) << r.refusal.message;
  EXPECT_EQ(r.reply.accepted(), 2);
  // A retry of the same report changes nothing and gets the same reply.
  ReportResult retry = board.Report(Report(*first, {1, 2}), 2000);
  EXPECT_FALSE(retry.refusal);
  EXPECT_EQ(retry.reply.accepted(), 2);
  EXPECT_TRUE(retry.accepted.empty());

  // The other worker's report is refused for the wrong worker, then overlaps by one config.
  jobs::v1::ReportRequest other = Report(*second, {2, 3});
  EXPECT_EQ(board.Report(other, 2000).refusal.kind, Refusal::kNotYours);
  other.set_worker_id("w2");
  r = board.Report(other, 2000);
  EXPECT_EQ(r.reply.accepted(), 1);
  EXPECT_EQ(r.reply.duplicates(), 1);
  EXPECT_EQ(board.Status(id, 2000)->done(), 3);
  // The trial the duplicate cost is leased again.
  auto third = board.Lease("w1", 10, 2000);
  ASSERT_TRUE(third);
  EXPECT_EQ(third->trials(), 1);
  r = board.Report(Report(*third, {7}), 3000);
  EXPECT_EQ(r.reply.accepted(), 1);
  auto status = board.Status(id, 3000);
  EXPECT_EQ(status->state(), "done");
  EXPECT_EQ(status->done(), 4);
  EXPECT_DOUBLE_EQ(status->tasks(0).best_cost(), 2e-3);
  EXPECT_FALSE(board.Lease("w1", 20, 3000));
}

TEST_P(JobBoardOnStoreTest, RecordsOfAnotherTaskOrTooManyAreRefusedWholly) {
  auto store = Open();
  JobBoard board(store.get(), kLeaseMs, 0);
  std::string id = board.Submit(Job(), 0);
  auto lease = board.Lease("w1", 0, 0);
  jobs::v1::ReportRequest report = Report(*lease, {1});
  report.mutable_records(0)->set_workload_key("dense.x86(32,32,32,float32)");
  ReportResult r = board.Report(report, 0);
  EXPECT_EQ(r.refusal.kind, Refusal::kInvalid);
  EXPECT_NE(r.refusal.message.find("record 1: workload"), std::string::npos) << r.refusal.message;
  r = board.Report(Report(*lease, {1, 2, 3}), 0);
  EXPECT_EQ(r.refusal.message, "the lease is for 2 trials, the report has 3 records");
  EXPECT_EQ(board.Status(id, 0)->done(), 0);
  // A lost device is no record: the trial is measured again.
  jobs::v1::ReportRequest lost = Report(*lease, {});
  *lost.add_records() = Record(5, tuning::DEVICE_LOST);
  r = board.Report(lost, 0);
  EXPECT_EQ(r.reply.device_lost(), 1);
  EXPECT_EQ(r.reply.accepted(), 0);
}

TEST_P(JobBoardOnStoreTest, AnExpiredLeaseGivesItsBatchToAnotherWorkerAndItsReportIsRefused) {
  auto store = Open();
  JobBoard board(store.get(), kLeaseMs, 0);
  board.Submit(Job("ann", 2), 0);
  auto lease = board.Lease("w1", 0, 0);
  EXPECT_FALSE(board.Renew(lease->lease_id(), "w1", 900));
  board.Expire(1800);
  EXPECT_FALSE(board.Lease("w2", 1800, 0)) << "renewed at 900: alive until 1900";
  board.Expire(1900);
  EXPECT_EQ(board.Renew(lease->lease_id(), "w1", 1900).kind, Refusal::kExpired);
  auto again = board.Lease("w2", 1900, 0);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->trials(), 2);
  EXPECT_EQ(board.Report(Report(*lease, {1}), 0).refusal.kind, Refusal::kExpired);
}

TEST_P(JobBoardOnStoreTest, HigherPriorityFirstThenTheUserServedLeastRecently) {
  auto store = Open();
  JobBoard board(store.get(), kLeaseMs, 0);
  std::string ann1 = board.Submit(Job("ann", 8), 0);
  std::string ann2 = board.Submit(Job("ann", 8), 0);
  std::string bob = board.Submit(Job("bob", 8), 0);
  std::string urgent = board.Submit(Job("cy", 2, 5), 0);
  EXPECT_EQ(board.Lease("w", 0, 0)->job_id(), urgent);
  EXPECT_EQ(board.Lease("w", 0, 0)->job_id(), ann1);
  EXPECT_EQ(board.Lease("w", 0, 0)->job_id(), bob);
  EXPECT_EQ(board.Lease("w", 0, 0)->job_id(), ann1);  // ann was served before bob
  (void)ann2;
}

TEST(JobBoardTest, JobsLeasesAndRecordsSurviveARestart) {
  TempDir dir;
  std::string id, lease_id, done_lease;
  {
    JobStore store(dir.path());
    JobBoard board(&store, kLeaseMs, 0);
    id = board.Submit(Job("ann", 6), 0);
    auto done = board.Lease("w1", 0, 0);
    lease_id = board.Lease("w1", 0, 0)->lease_id();
    done_lease = done->lease_id();
    ASSERT_EQ(board.Report(Report(*done, {4, 5}), 0).reply.accepted(), 2);
  }
  JobStore store(dir.path());
  JobBoard board(&store, kLeaseMs, 50000);
  EXPECT_EQ(board.UnloggedRecords().size(), 2u) << "never marked as logged";
  auto status = board.Status(id, 0);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->done(), 2);
  EXPECT_EQ(status->tasks(0).leased(), 2);
  // The lease restored runs on from the restart; the report of the one before is remembered.
  EXPECT_FALSE(board.Renew(lease_id, "w1", 50500));
  EXPECT_EQ(board.Report(Report(*board.Lease("w2", 50500, 0), {}), 0).reply.accepted(), 0);
  jobs::v1::WorkLease done;
  done.set_lease_id(done_lease);
  EXPECT_EQ(board.Report(Report(done, {4, 5}), 0).reply.accepted(), 2);
  EXPECT_EQ(board.Status(id, 0)->done(), 2);
  // Once in the shared log, the job keeps only what it counts and ranks with.
  board.MarkAllLogged();
  JobBoard again(&store, kLeaseMs, 60000);
  EXPECT_TRUE(again.UnloggedRecords().empty());
  EXPECT_EQ(again.Status(id, 0)->done(), 2);
  EXPECT_DOUBLE_EQ(again.Status(id, 0)->tasks(0).best_cost(), 5e-3);
}

// Trackers sharing the jobs broker different devices: each leases only what its own can measure.
TEST_P(JobBoardOnStoreTest, ATrackerLeasesOnlyJobsOfTheDevicesItBrokers) {
  auto store = Open();
  JobBoard board(store.get(), kLeaseMs, 0);
  jobs::v1::SubmitRequest phone = Job("ann");
  phone.set_rpc_key("phone");
  std::string phone_job = board.Submit(phone, 0);
  std::string cpu_job = board.Submit(Job("bob"), 0);
  auto only_cpu = [](const std::string& key) { return key == "cpu"; };
  EXPECT_EQ(board.Lease("w", 0, 0, only_cpu)->job_id(), cpu_job);
  EXPECT_EQ(board.Lease("w", 0, 0, only_cpu)->job_id(), cpu_job);
  EXPECT_FALSE(board.Lease("w", 0, 0, only_cpu)) << "the phones' job waits for a phone tracker";
  EXPECT_EQ(board.Lease("w", 0, 0)->job_id(), phone_job);
}

// A task to be timed with cold weights leases its batches so, also from a store opened again
// (another tracker, or this one restarted); a store from before the column leases them warm.
TEST_P(JobBoardOnStoreTest, ColdWeightTasksLeaseTheirBatchesCold) {
  jobs::v1::SubmitRequest request = Job("ann", 4);
  request.mutable_tasks(0)->set_cold_weights(true);
  jobs::v1::TaskSpec* warm = request.add_tasks();
  warm->set_workload_key("dense.x86(32,32,32,float32)");
  warm->set_trials(4);
  std::string id;
  {
    auto store = Open();
    JobBoard board(store.get(), kLeaseMs, 0);
    id = board.Submit(request, 0);
    EXPECT_TRUE(board.Status(id, 0)->tasks(0).cold_weights());
    EXPECT_FALSE(board.Status(id, 0)->tasks(1).cold_weights());
  }
  auto store = Open();
  JobBoard board(store.get(), kLeaseMs, 0);
  std::map<std::string, bool> cold;
  for (int i = 0; i < 4; ++i) {
    auto lease = board.Lease("w1", 0, 0);
    ASSERT_TRUE(lease.has_value());
    cold[lease->workload_key()] = lease->cold_weights();
  }
  EXPECT_EQ(cold, (std::map<std::string, bool>{{"dense.x86(16,16,16,float32)", true},
                                               {"dense.x86(32,32,32,float32)", false}}));
  if (sqlite()) {
    {
      Database db(dir_.path() + "/jobs.db", false,
                  [](const SqliteFailure&) { FAIL() << "cannot change the store"; });
      db.Exec("ALTER TABLE job_tasks DROP COLUMN cold_weights;");
    }
    JobStore old_store(dir_.path());
    EXPECT_FALSE(JobBoard(&old_store, kLeaseMs, 0).Status(id, 0)->tasks(0).cold_weights());
  }
}

// The dashboard's tuning curve: each new best with when and after how many records, and the
// task's weight, also after a restart.
TEST_P(JobBoardOnStoreTest, NewBestsAndWeightsAreKeptForTheCurve) {
  std::string id;
  jobs::v1::SubmitRequest request = Job("ann", 6);
  request.mutable_tasks(0)->set_weight(4);
  {
    auto store = Open();
    JobBoard board(store.get(), kLeaseMs, 0);
    id = board.Submit(request, 0);
    ASSERT_EQ(board.Report(Report(*board.Lease("w1", 0, 0), {3, 5}), 1000).reply.accepted(), 2);
    ASSERT_EQ(board.Report(Report(*board.Lease("w1", 0, 0), {1, 2}), 2000).reply.accepted(), 2);
  }
  auto store = Open();
  JobBoard board(store.get(), kLeaseMs, 5000);
  const jobs::v1::TaskStatus task = board.Status(id, 0)->tasks(0);
  EXPECT_EQ(task.weight(), 4);
  ASSERT_EQ(task.improvements_size(), 2);  // config 3 (4 ms) then config 1 (2 ms)
  EXPECT_EQ(task.improvements(0).unix_ms(), 1000);
  EXPECT_EQ(task.improvements(0).done(), 1);
  EXPECT_DOUBLE_EQ(task.improvements(0).best_cost(), 4e-3);
  EXPECT_EQ(task.improvements(1).unix_ms(), 2000);
  EXPECT_EQ(task.improvements(1).done(), 3);
  EXPECT_DOUBLE_EQ(task.improvements(1).best_cost(), 2e-3);
  // A file from before weights weighs each task by 1.
  if (sqlite()) {
    {
      Database db(dir_.path() + "/jobs.db", false,
                  [](const SqliteFailure&) { FAIL() << "cannot change the store"; });
      db.Exec("ALTER TABLE job_tasks DROP COLUMN weight; ALTER TABLE job_leases DROP expires_ms;");
    }
    JobStore old_store(dir_.path());
    EXPECT_EQ(JobBoard(&old_store, kLeaseMs, 6000).Status(id, 0)->tasks(0).weight(), 1);
  }
  request.mutable_tasks(0)->set_alternative_to("conv2d_NCHWc.x86(1,8,8,8,8,3,3,1,1,float32)");
  EXPECT_NE(ValidateSubmit(request).find("is not another task of the job"), std::string::npos);
  request.mutable_tasks(0)->clear_alternative_to();
  request.mutable_tasks(0)->set_weight(-1);
  EXPECT_NE(ValidateSubmit(request).find("weight must be 0.."), std::string::npos);
}

TEST_P(JobBoardOnStoreTest, AnExhaustedTaskEndsTheJobAndTheBatchesStillOut) {
  auto store = Open();
  JobBoard board(store.get(), kLeaseMs, 0);
  std::string id = board.Submit(Job("ann", 8), 0);
  auto first = board.Lease("w1", 0, 0);
  auto second = board.Lease("w2", 0, 0);
  jobs::v1::ReportRequest report = Report(*first, {1});
  report.set_exhausted(true);  // the space had one configuration left
  EXPECT_EQ(board.Report(report, 0).reply.accepted(), 1);
  auto status = board.Status(id, 0);
  EXPECT_EQ(status->state(), "done");
  EXPECT_TRUE(status->tasks(0).exhausted());
  EXPECT_EQ(status->workers(), 0);
  jobs::v1::ReportRequest late = Report(*second, {2});
  late.set_worker_id("w2");
  EXPECT_EQ(board.Report(late, 0).refusal.kind, Refusal::kExpired);
}

TEST_P(JobBoardOnStoreTest, CancelEndsTheLeases) {
  auto store = Open();
  JobBoard board(store.get(), kLeaseMs, 0);
  std::string id = board.Submit(Job(), 0);
  auto lease = board.Lease("w1", 0, 0);
  EXPECT_TRUE(board.Cancel(id));
  EXPECT_EQ(board.Renew(lease->lease_id(), "w1", 10).kind, Refusal::kExpired);
  EXPECT_EQ(board.Report(Report(*lease, {1}), 0).refusal.kind, Refusal::kExpired);
  EXPECT_FALSE(board.Lease("w1", 10, 0));
  EXPECT_EQ(board.Status(id, 0)->state(), "cancelled");
  EXPECT_FALSE(board.Cancel("nope"));
}

// Two trackers on one PostgreSQL database: each loads its board again when the other wrote, and
// a lease taken through one is renewed, reported or expired through the other, on the
// database's clock.
TEST(SharedJobStoreTest, TwoTrackersServeOneQueueOfJobs) {
  std::string why_not;
  if (!testing::PostgresAvailable(&why_not)) GTEST_SKIP() << why_not;
  const std::string db = testing::NewPostgresDatabase();
  TempDir unused;
  JobStore a_store(unused.path(), db);
  JobStore b_store(unused.path(), db);
  ASSERT_TRUE(a_store.shared());
  const int64_t now = a_store.NowMillis();
  JobBoard a(&a_store, kLeaseMs, now);
  std::string id = a.Submit(Job("ann", 6), 1);
  EXPECT_FALSE(a_store.ChangedElsewhere()) << "its own writes";
  EXPECT_TRUE(b_store.ChangedElsewhere());
  auto lease = a.Lease("w1", now, 1);
  ASSERT_TRUE(lease);

  JobBoard b(&b_store, kLeaseMs, now);
  EXPECT_FALSE(b_store.ChangedElsewhere());
  EXPECT_EQ(b.Status(id, 1)->tasks(0).leased(), 2);
  EXPECT_FALSE(b.Renew(lease->lease_id(), "w1", now + 900));
  auto second = b.Lease("w2", now + 900, 2);
  ASSERT_TRUE(second);
  EXPECT_NE(second->seed(), lease->seed()) << "the count of leases is shared";
  ASSERT_EQ(b.Report(Report(*lease, {1, 2}), 3).reply.accepted(), 2);

  ASSERT_TRUE(a_store.ChangedElsewhere());
  JobBoard again(&a_store, kLeaseMs, now + 950);
  EXPECT_EQ(again.Status(id, 3)->done(), 2);
  ReportResult retry = again.Report(Report(*lease, {1, 2}), 4);
  EXPECT_EQ(retry.reply.accepted(), 2) << "the reply is shared too";
  EXPECT_TRUE(retry.accepted.empty());
  // The second lease, taken at now + 900 through the other tracker, ends at now + 1900 here.
  again.Expire(now + 1899);
  EXPECT_EQ(again.Status(id, 4)->tasks(0).leased(), 2);
  again.Expire(now + 1900);
  EXPECT_EQ(again.Status(id, 4)->tasks(0).leased(), 0);
  EXPECT_EQ(again.Renew(second->lease_id(), "w2", now + 1900).kind, Refusal::kExpired);
  EXPECT_TRUE(b_store.ChangedElsewhere());
}

TEST(SharedJobStoreTest, AStoreThatCannotBeUsedIsAClearError) {
  TempDir dir;
  try {
    JobStore store(dir.path(), "mysql://db/jobs");
    FAIL() << "a location that is no PostgreSQL URI was taken";
  } catch (const ConfigError& error) {
    EXPECT_STREQ(error.what(),
                 "--jobs-db 'mysql://db/jobs': expected postgresql://USER@HOST/DB (without it the "
                 "jobs live in --state DIR/jobs.db)");
  }
  try {
    JobStore store(dir.path(), "postgresql://tessera@/jobs?host=" + dir.path() + "/no-server");
    FAIL() << "a server that is not there was taken";
  } catch (const ConfigError& error) {
    EXPECT_THAT(error.what(), ::testing::StartsWith("cannot open tracker jobs 'postgresql://"));
  }
}

INSTANTIATE_TEST_SUITE_P(Stores, JobBoardOnStoreTest, ::testing::Values("sqlite", "postgresql"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace tracker
}  // namespace tessera
