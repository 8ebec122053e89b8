// Tuning jobs end to end: `tessera job` submits to a real tracker, `tessera worker` processes
// lease batches and measure on real device servers, all on 127.0.0.1. Each test checks that the
// job ends with exactly its trials as records in the tracker's shared log: none lost (a worker
// killed, the tracker restarted, a device killed) and none duplicated.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <set>

#include "compiler/driver/target.h"
#include "compiler/driver/vector_unit.h"
#include "fleet/client/job_client.h"
#include "records/tuning_log.h"
#include "tests/integration/fleet_fixture.h"
#include "tests/testing/postgres_server.h"

namespace tessera {
namespace {

using testing::Daemon;
using testing::Fleet;

constexpr const char* kSmall = "dense.x86(16,16,16,float32)";
constexpr const char* kOther = "dense.x86(16,32,8,float32)";

// A fleet whose tracker keeps its state in a directory of the test's, its tuning log and its
// jobs there or (`log_db`, `jobs_db`) in a PostgreSQL database (with `jobs_db`, its
// registrations too, as tracker `name`), and takes a worker's batch back after 1.5 s of silence.
struct JobFleet {
  explicit JobFleet(const std::string& name, const std::string& token = "",
                    const std::string& log_db = "", const std::string& jobs_db = "")
      : state(testing::MakeTempDir(name)),
        log(log_db.empty() ? state + "/tuning.db" : log_db),
        fleet(Config(name, state, token, log_db, jobs_db)) {}

  static testing::FleetConfig Config(const std::string& name, const std::string& state,
                                     const std::string& token, const std::string& log_db,
                                     const std::string& jobs_db) {
    setenv("TESSERA_NUM_THREADS", "1", 1);  // inherited by the servers' and workers' processes
    testing::FleetConfig config;
    config.token = token;
    config.tracker_flags = {
        "--heartbeat-ms", "200", "--lease-timeout-ms", "2500", "--job-lease-ms", "1500",
        "--state",        state};
    if (!log_db.empty())
      config.tracker_flags.insert(config.tracker_flags.end(), {"--log-db", log_db});
    if (!jobs_db.empty()) {
      // Its registrations in the same database, under its own name: no volume at all.
      config.tracker_flags.insert(config.tracker_flags.end(), {"--jobs-db", jobs_db, "--state-db",
                                                               jobs_db, "--tracker-name", name});
    }
    config.server_flags = {"--call-timeout-ms", "30000"};
    return config;
  }

  std::unique_ptr<Daemon> StartWorker() {
    std::vector<std::string> args = {"worker",   "--tracker",  fleet.tracker_address(),
                                     "--number", "2",          "--repeat",
                                     "2",        "--parallel", "2"};
    if (!fleet.token_file().empty()) args.insert(args.end(), {"--token-file", fleet.token_file()});
    return std::make_unique<Daemon>("cli/tessera", args, 15000, "worker ");
  }

  fleet::JobClient Client(const std::string& token = "") const {
    fleet::TrackerOptions options;
    options.address = fleet.tracker_address();
    options.token = token;
    options.retry_window_ms = 15000;
    return fleet::JobClient(options);
  }

  std::string Submit(const std::vector<std::string>& tasks, int trials, int batch,
                     const std::string& tuner = "random") {
    std::string command = "cli/tessera job submit --tracker " + fleet.tracker_address() +
                          " --target llvm --rpc-key cpu --trials " + std::to_string(trials) +
                          " --batch " + std::to_string(batch) + " --tuner " + tuner;
    for (const std::string& task : tasks) command += " --task '" + task + "'";
    std::string out;
    EXPECT_EQ(testing::RunCommand(command, &out), 0) << out;
    return out.substr(0, out.find('\n'));
  }

  bool WaitForState(const std::string& job, const std::string& wanted, int timeout_ms) {
    fleet::JobClient client = Client();
    return testing::WaitFor([&] { return client.Status(job).state() == wanted; }, timeout_ms);
  }

  // The shared log's records of `workload` on "llvm".
  std::vector<tuning::MeasureRecord> Records(const std::string& workload,
                                             const std::string& target = "llvm") const {
    auto records_log = records::TuningLog::Open(log, /*create=*/false);
    records::RecordFilter filter;
    filter.workload_key = workload;
    filter.target = target;
    return records_log->List(filter);
  }

  // Exactly `trials` records of `workload`, one per configuration, none a lost device (and with
  // `all_ok`, none an error at all).
  void ExpectExactRecords(const std::string& workload, int trials, bool all_ok = true,
                          const std::string& target = "llvm") const {
    std::vector<tuning::MeasureRecord> records = Records(workload, target);
    EXPECT_EQ(records.size(), static_cast<size_t>(trials)) << workload;
    std::set<int64_t> configs;
    for (const tuning::MeasureRecord& r : records) {
      EXPECT_TRUE(configs.insert(r.config_index()).second)
          << "config measured twice: " << r.config_index();
      EXPECT_EQ(r.device_key(), "cpu");
      EXPECT_NE(r.error_kind(), tuning::DEVICE_LOST);
      if (all_ok) {
        EXPECT_EQ(r.error_kind(), tuning::OK)
            << tuning::ErrorKind_Name(r.error_kind()) << " " << r.error_message();
      }
    }
  }

  std::string state;
  std::string log;  // where the tracker's shared log lives
  Fleet fleet;
};

// The tests that end with "exactly its records" run with the shared log and the jobs in each
// store: SQLite in the tracker's state directory, and a database on a real PostgreSQL server
// (skipped without one).
class JobOnStoreTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string why_not;
    if (!testing::StoreLocation(GetParam(), &log_db_, &why_not)) GTEST_SKIP() << why_not;
  }
  std::string log_db_;  // empty: SQLite
};

TEST_P(JobOnStoreTest, AJobTunedByTwoWorkersOnTwoServersEndsWithExactlyItsRecords) {
  JobFleet f("jobs-two-workers", "", log_db_, log_db_);
  f.fleet.AddServer("cpu");
  f.fleet.AddServer("cpu");
  std::string job = f.Submit({kSmall, kOther}, 6, 2, "xgb");
  ASSERT_FALSE(job.empty());
  auto first = f.StartWorker();
  auto second = f.StartWorker();
  // Both work on the job at once (a batch each) at some point.
  fleet::JobClient client = f.Client();
  int most_batches_out = 0;
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        jobs::v1::JobStatus now = client.Status(job);
        most_batches_out = std::max(most_batches_out, now.workers());
        return now.state() == "done";
      },
      120000));
  EXPECT_EQ(most_batches_out, 2);
  jobs::v1::JobStatus status = client.Status(job);
  EXPECT_EQ(status.done(), 12);
  for (const jobs::v1::TaskStatus& task : status.tasks()) {
    EXPECT_EQ(task.done(), 6);
    EXPECT_EQ(task.failed(), 0);
    EXPECT_GT(task.best_cost(), 0);
  }
  f.ExpectExactRecords(kSmall, 6);
  f.ExpectExactRecords(kOther, 6);

  // The command line shows it too.
  std::string out;
  ASSERT_EQ(testing::RunCommand(
                "cli/tessera job status " + job + " --tracker " + f.fleet.tracker_address(), &out),
            0);
  EXPECT_THAT(out, ::testing::HasSubstr("done"));
  EXPECT_THAT(out, ::testing::HasSubstr("6/6"));
  ASSERT_EQ(testing::RunCommand(
                "cli/tessera job list --json --tracker " + f.fleet.tracker_address(), &out),
            0);
  EXPECT_THAT(out, ::testing::HasSubstr("\"job_id\":\"" + job + "\""));
}

TEST_P(JobOnStoreTest, AWorkerKilledMidBatchLosesOnlyItsBatch) {
  JobFleet f("jobs-kill-worker", "", log_db_, log_db_);
  f.fleet.AddServer("cpu");
  std::string job = f.Submit({kSmall}, 6, 3);
  fleet::JobClient client = f.Client();
  {
    auto doomed = f.StartWorker();
    ASSERT_TRUE(testing::WaitFor([&] { return client.Status(job).workers() > 0; }, 30000));
    doomed->Stop(SIGKILL);
  }
  jobs::v1::JobStatus status = client.Status(job);
  EXPECT_LT(status.done(), 6);
  auto survivor = f.StartWorker();
  ASSERT_TRUE(f.WaitForState(job, "done", 120000));
  f.ExpectExactRecords(kSmall, 6);
}

TEST_P(JobOnStoreTest, ATrackerRestartedMidJobLosesNothing) {
  JobFleet f("jobs-restart", "", log_db_, log_db_);
  f.fleet.AddServer("cpu");
  std::string job = f.Submit({kSmall}, 8, 2);
  fleet::JobClient client = f.Client();
  auto worker = f.StartWorker();
  ASSERT_TRUE(testing::WaitFor([&] { return client.Status(job).done() >= 2; }, 60000));
  f.fleet.RestartTracker();
  EXPECT_GE(f.Client().Status(job).done(), 2) << "records kept across the restart";
  ASSERT_TRUE(f.WaitForState(job, "done", 120000));
  f.ExpectExactRecords(kSmall, 8);
}

// Two trackers on one PostgreSQL database serve one queue of jobs and one log: a job submitted to
// the first is tuned by the second's worker and by its own, and when the first tracker is killed
// mid-job the second's worker finishes it, with every record exactly once.
TEST(SharedJobsTest, TwoTrackersTuneOneJobAndEitherFinishesItWhenTheOtherDies) {
  std::string why_not;
  if (!testing::PostgresAvailable(&why_not)) GTEST_SKIP() << why_not;
  const std::string db = testing::NewPostgresDatabase();
  JobFleet first("jobs-first-tracker", "", db, db);
  JobFleet second("jobs-second-tracker", "", db, db);
  first.fleet.AddServer("cpu");
  second.fleet.AddServer("cpu");
  std::string job = first.Submit({kSmall, kOther}, 8, 2);
  ASSERT_FALSE(job.empty());
  fleet::JobClient via_first = first.Client();
  fleet::JobClient via_second = second.Client();
  EXPECT_EQ(via_second.Status(job).state(), "queued") << "the second tracker knows the job";
  {
    auto worker_of_second = second.StartWorker();
    ASSERT_TRUE(testing::WaitFor([&] { return via_first.Status(job).done() >= 2; }, 60000));
  }
  const int64_t by_second = via_first.Status(job).done();
  {
    auto worker_of_first = first.StartWorker();
    ASSERT_TRUE(
        testing::WaitFor([&] { return via_second.Status(job).done() >= by_second + 2; }, 60000));
  }
  auto worker_of_first = first.StartWorker();
  ASSERT_TRUE(testing::WaitFor([&] { return via_second.Status(job).workers() > 0; }, 30000));
  ASSERT_EQ(kill(first.fleet.tracker_pid(), SIGKILL), 0);
  EXPECT_LT(via_second.Status(job).done(), 16) << "killed mid-job";
  auto worker_of_second = second.StartWorker();
  ASSERT_TRUE(testing::WaitFor([&] { return via_second.Status(job).state() == "done"; }, 120000));
  jobs::v1::JobStatus status = via_second.Status(job);
  EXPECT_EQ(status.done(), 16);
  second.ExpectExactRecords(kSmall, 8);
  second.ExpectExactRecords(kOther, 8);
}

TEST(JobTest, ADeviceKilledMidMeasureMovesItsCandidatesAndLeavesNoErrorRecord) {
  JobFleet f("jobs-device-loss");
  Daemon& one = f.fleet.AddServer("cpu");
  Daemon& two = f.fleet.AddServer("cpu");
  std::string job = f.Submit({kSmall}, 8, 4);
  auto worker = f.StartWorker();
  // Kill whichever server the worker's measurer holds as soon as it holds one.
  std::string killed;
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        for (Daemon* server : {&one, &two}) {
          if (f.fleet.StateOf(server->address()) == "busy") {
            killed = server->address();
            server->Stop(SIGKILL);
            return true;
          }
        }
        return false;
      },
      60000));
  ASSERT_TRUE(f.WaitForState(job, "done", 120000));
  f.ExpectExactRecords(kSmall, 8);
}

TEST(JobTest, CancelStopsTheJobsLeasesAndKeepsItsRecords) {
  JobFleet f("jobs-cancel");
  f.fleet.AddServer("cpu");
  std::string job = f.Submit({kSmall}, 500, 2);
  fleet::JobClient client = f.Client();
  auto worker = f.StartWorker();
  ASSERT_TRUE(testing::WaitFor([&] { return client.Status(job).done() >= 2; }, 60000));
  std::string out;
  ASSERT_EQ(testing::RunCommand(
                "cli/tessera job cancel " + job + " --tracker " + f.fleet.tracker_address(), &out),
            0);
  EXPECT_THAT(out, ::testing::HasSubstr("cancelled"));
  jobs::v1::JobStatus status = client.Status(job);
  EXPECT_EQ(status.state(), "cancelled");
  EXPECT_EQ(status.workers(), 0);
  // The batch in flight is refused when it is reported: nothing more arrives. The worker runs
  // one batch at a time, so once it has done a later job's batch it is past the cancelled one.
  std::string later = f.Submit({kOther}, 2, 2);
  ASSERT_TRUE(f.WaitForState(later, "done", 120000));
  EXPECT_EQ(client.Status(job).done(), status.done());
  EXPECT_EQ(f.Records(kSmall).size(), static_cast<size_t>(status.done()));
  f.ExpectExactRecords(kOther, 2);
  EXPECT_EQ(testing::RunCommand(
                "cli/tessera job watch " + job + " --tracker " + f.fleet.tracker_address(), &out),
            1);
}

// A model job: the command extracts the tasks and their trial shares; the tracker only sees keys.
// Submitted with --cold-weights on, every batch is timed with the weights evicted on the device
// and every record says so.
TEST(JobTest, AModelJobTunesEveryTaskOfTheModelWithItsShare) {
  JobFleet f("jobs-model");
  f.fleet.AddServer("cpu");
  std::string out;
  ASSERT_EQ(testing::RunCommand(
                "/usr/bin/python3 tests/cli/make_tune_model.py " + f.state + "/tiny", &out),
            0);
  ASSERT_EQ(testing::RunCommand("cli/tessera job submit " + f.state +
                                    "/tiny.onnx --target llvm --rpc-key cpu --trials 12 --batch 2 "
                                    "--tuner random --cold-weights on --tracker " +
                                    f.fleet.tracker_address(),
                                &out),
            0)
      << out;
  std::string job = out.substr(0, out.find('\n'));
  jobs::v1::JobStatus status = f.Client().Status(job);
  EXPECT_EQ(status.name(), "tiny.onnx");
  // Three convolutions, the Winograd alternatives of the two of stride 1, the dense.
  ASSERT_EQ(status.tasks_size(), 6);
  EXPECT_EQ(status.trials(), 12);
  auto worker = f.StartWorker();
  ASSERT_TRUE(f.WaitForState(job, "done", 180000));
  const jobs::v1::JobStatus done = f.Client().Status(job);
  for (const jobs::v1::TaskStatus& task : done.tasks()) {
    EXPECT_GE(task.trials(), 1);
    EXPECT_EQ(task.done(), task.trials()) << task.workload_key();
    // Some conv2d configurations legitimately fail to build; none is lost to a device.
    f.ExpectExactRecords(task.workload_key(), static_cast<int>(task.trials()), /*all_ok=*/false);
    EXPECT_TRUE(task.cold_weights()) << task.workload_key();
    for (const tuning::MeasureRecord& r : f.Records(task.workload_key())) {
      EXPECT_TRUE(r.cold_weights()) << task.workload_key() << " config " << r.config_index();
    }
  }
  ASSERT_EQ(testing::RunCommand(
                "cli/tessera job status " + job + " --tracker " + f.fleet.tracker_address(), &out),
            0);
  EXPECT_THAT(out, ::testing::HasSubstr("  (cold weights)\n"));
}

// A quantized model's job tunes its int8 tasks: the submitted tasks are the int8 templates'
// workloads (no float convolution for a convolution that runs in int8), and the worker measures
// them on the device with their typed arguments, each record checked there exactly.
TEST(JobTest, AQuantizedModelJobTunesItsInt8Tasks) {
  if (!HasByteDotProduct(Target("llvm -mcpu=native"))) {
    GTEST_SKIP() << "this CPU has no byte dot product: the model has no int8 task";
  }
  JobFleet f("jobs-int8");
  f.fleet.AddServer("cpu");
  std::string out;
  ASSERT_EQ(testing::RunCommand("/usr/bin/python3 tools/make_quantized_models.py " + f.state +
                                    " --models small_cnn",
                                &out),
            0)
      << out;
  ASSERT_EQ(testing::RunCommand("cli/tessera job submit " + f.state +
                                    "/small_cnn.onnx --target 'llvm -mcpu=native' --rpc-key cpu "
                                    "--trials 16 --batch 4 --tuner random --tracker " +
                                    f.fleet.tracker_address(),
                                &out),
            0)
      << out;
  std::string job = out.substr(0, out.find('\n'));
  std::vector<std::string> int8_keys;
  const jobs::v1::JobStatus submitted = f.Client().Status(job);
  for (const jobs::v1::TaskStatus& task : submitted.tasks()) {
    EXPECT_EQ(task.workload_key().rfind("conv2d_NCHWc.x86(", 0), std::string::npos)
        << task.workload_key();
    if (task.workload_key().find("_int8.x86(") != std::string::npos) {
      int8_keys.push_back(task.workload_key());
    }
  }
  EXPECT_EQ(int8_keys.size(), 4u);  // the stem, the 3x3 (twice), the 1x1, the classifier
  auto worker = f.StartWorker();
  ASSERT_TRUE(f.WaitForState(job, "done", 180000));
  int ok = 0;
  const jobs::v1::JobStatus done = f.Client().Status(job);
  for (const jobs::v1::TaskStatus& task : done.tasks()) {
    f.ExpectExactRecords(task.workload_key(), static_cast<int>(task.trials()), /*all_ok=*/false,
                         "llvm -mcpu=native");
    for (const tuning::MeasureRecord& r : f.Records(task.workload_key(), "llvm -mcpu=native")) {
      EXPECT_NE(r.error_kind(), tuning::WRONG_ANSWER) << task.workload_key();
      ok += r.error_kind() == tuning::OK &&
            task.workload_key().find("_int8.x86(") != std::string::npos;
    }
  }
  EXPECT_GT(ok, 0);
}

TEST(JobTest, EveryJobCallNeedsTheTokenAndAReportNeedsItsLease) {
  JobFleet f("jobs-token", "s3cret");
  auto call_all = [&](fleet::JobClient client) {
    std::vector<std::pair<std::string, std::function<void()>>> calls = {
        {"Submit", [&] { client.Submit(jobs::v1::SubmitRequest()); }},
        {"List", [&] { client.List(); }},
        {"Status", [&] { client.Status("x"); }},
        {"Cancel", [&] { client.Cancel("x"); }},
        {"Lease", [&] { client.Lease("w"); }},
        {"Renew", [&] { client.Renew("x", "w"); }},
        {"Report", [&] { client.Report(jobs::v1::ReportRequest()); }},
        {"History", [&] { client.History("x", "w"); }},
    };
    for (auto& [name, call] : calls) {
      try {
        call();
        ADD_FAILURE() << name << " was accepted";
      } catch (const fleet::FleetError& error) {
        EXPECT_EQ(error.code(), fleet::FleetErrorCode::kUnauthenticated)
            << name << ": " << error.what();
      }
    }
  };
  call_all(f.Client(""));
  call_all(f.Client("forged"));

  // With the token: a job, a lease, and a report under a lease id that is not the worker's.
  fleet::JobClient client = f.Client("s3cret");
  jobs::v1::SubmitRequest request;
  jobs::v1::TaskSpec* task = request.add_tasks();
  task->set_workload_key(kSmall);
  task->set_trials(4);
  request.set_target("llvm");
  request.set_rpc_key("cpu");
  client.Submit(request);
  std::optional<jobs::v1::WorkLease> lease = client.Lease("honest");
  ASSERT_TRUE(lease);
  jobs::v1::ReportRequest forged;
  forged.set_lease_id(lease->lease_id());
  forged.set_worker_id("thief");
  try {
    client.Report(forged);
    ADD_FAILURE() << "a report for another worker's lease was accepted";
  } catch (const fleet::FleetError& error) {
    EXPECT_EQ(error.code(), fleet::FleetErrorCode::kPermissionDenied) << error.what();
  }
  forged.set_lease_id("0123456789abcdef");
  EXPECT_FALSE(client.Report(forged)) << "an unknown lease is over";
  request.set_target(std::string(1000, 'x'));
  try {
    client.Submit(request);
    ADD_FAILURE() << "a 1000-character target was accepted";
  } catch (const fleet::FleetError& error) {
    EXPECT_EQ(error.code(), fleet::FleetErrorCode::kInvalidArgument);
    EXPECT_THAT(error.what(), ::testing::HasSubstr("must be 1..256 printable characters"));
  }
}

INSTANTIATE_TEST_SUITE_P(Stores, JobOnStoreTest, ::testing::Values("sqlite", "postgresql"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace tessera
