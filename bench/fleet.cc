// //bench:fleet: grant latency of the tracker under a full queue, array copy throughput to a
// device server over loopback (direct and through the tracker's relay, a --dial-out server), the
// latency of a `log best` query through the tracker's shared log, and (--mode jobs) tuning-job
// throughput with 1, 2 and 4 workers against one `tessera tune` measuring on the same devices.
// Starts its own tracker and servers on 127.0.0.1.
//   bazel run -c opt //bench:fleet -- [--mode all|grants|copy|log|jobs] [--clients 200]
//                                      [--servers 20] [--grants-per-client 10] [--hold-ms 2]
//                                      [--client-model async|threads] [--mib 256]
//                                      [--rounds 3] [--log-records 100000] [--log-queries 2000]
//   bazel run -c opt //bench:fleet -- --mode log --db postgresql://USER@HOST/DB [--log-records
//                                      1000000] [--writers 16] [--readers 64]   (the store alone)
//   bazel run -c opt //bench:fleet -- --mode jobs [--job-trials 48] [--job-servers 4]
//                                      [--job-task 'dense.x86(64,64,64,float32)']
#include <unistd.h>
#include <algorithm>
#include <chrono>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "bench/fleet_grants.h"
#include "bench/log_store.h"
#include "bench/stats.h"
#include "common/command_line.h"
#include "common/error.h"
#include "common/file.h"
#include "fleet/client/job_client.h"
#include "fleet/client/log_client.h"
#include "fleet/client/remote_session.h"
#include "fleet/mutex_checks.h"
#include "tests/integration/fleet_fixture.h"

namespace {

using Clock = std::chrono::steady_clock;
using tessera::bench::CpuSeconds;
using tessera::bench::LoadAverage;
using tessera::bench::Millis;
using tessera::bench::Percentile;

// Array copies to one server, reached directly or (`relayed`) through the tracker's relay.
void Throughput(int64_t mib, int rounds, bool relayed) {
  tessera::testing::Fleet fleet;
  pid_t server = (relayed ? fleet.AddDialOutServer("copy") : fleet.AddServer("copy")).pid();
  tessera::fleet::SessionOptions options;
  options.key = "copy";
  auto session = tessera::fleet::RemoteSession::Open(fleet.Client(), options);
  const size_t nbytes = static_cast<size_t>(mib) << 20;
  std::vector<char> data(nbytes, 1), back(nbytes, 0);
  int64_t array = session->AllocArray({static_cast<int64_t>(nbytes)}, "uint8");
  double best_in = 0, best_out = 0, sum_in = 0, sum_out = 0, cpu_in = 0, cpu_out = 0;
  const pid_t tracker = relayed ? fleet.tracker_pid() : 0;
  auto cpu_seconds = [&] {  // client, server and (relayed) the tracker
    return CpuSeconds(0) + CpuSeconds(server) + (tracker != 0 ? CpuSeconds(tracker) : 0);
  };
  for (int r = 0; r < rounds; ++r) {
    double cpu = cpu_seconds();
    Clock::time_point start = Clock::now();
    session->CopyIn(array, data.data(), nbytes);
    double in = nbytes / (Millis(Clock::now() - start) / 1000) / 1e9;
    double cpu_mid = cpu_seconds();
    cpu_in += cpu_mid - cpu;
    start = Clock::now();
    session->CopyOut(array, back.data(), nbytes);
    double out = nbytes / (Millis(Clock::now() - start) / 1000) / 1e9;
    cpu_out += cpu_seconds() - cpu_mid;
    best_in = std::max(best_in, in);
    best_out = std::max(best_out, out);
    sum_in += in;
    sum_out += out;
  }
  if (back != data) std::printf("ERROR: the array came back different\n");
  std::printf(
      "array copy over loopback, %s, %lld MiB, %d rounds:\n"
      "  upload (CopyIn):    best %.2f GB/s   mean %.2f GB/s\n"
      "  download (CopyOut): best %.2f GB/s   mean %.2f GB/s\n"
      "  CPU time of client + server%s per GB: upload %.2f s, download %.2f s (load %s)\n",
      relayed ? "through the tracker's relay (--dial-out)" : "direct", static_cast<long long>(mib),
      rounds, best_in, sum_in / rounds, best_out, sum_out / rounds, relayed ? " + tracker" : "",
      cpu_in / (rounds * nbytes / 1e9), cpu_out / (rounds * nbytes / 1e9), LoadAverage().c_str());
}

struct JobBench {
  int64_t trials = 48;
  int servers = 4;
  std::string task = "dense.x86(64,64,64,float32)";
};

// A fresh fleet per run, so that no run resumes from another's records.
tessera::testing::FleetConfig JobFleetConfig() {
  tessera::testing::FleetConfig config;
  config.tracker_flags = {"--heartbeat-ms", "500",  "--lease-timeout-ms", "5000",
                          "--job-lease-ms", "10000"};
  config.server_flags = {"--call-timeout-ms", "30000"};
  return config;
}

// Seconds for `workers` workers to finish one job of `bench.trials` trials.
double JobSeconds(const JobBench& bench, int workers) {
  tessera::testing::Fleet fleet(JobFleetConfig());
  for (int i = 0; i < bench.servers; ++i) fleet.AddServer("bench");
  tessera::fleet::TrackerOptions options;
  options.address = fleet.tracker_address();
  tessera::fleet::JobClient client(options);
  tessera::jobs::v1::SubmitRequest request;
  tessera::jobs::v1::TaskSpec* task = request.add_tasks();
  task->set_workload_key(bench.task);
  task->set_trials(bench.trials);
  request.set_target("llvm");
  request.set_rpc_key("bench");
  request.set_batch_size(8);
  Clock::time_point start = Clock::now();
  std::string job = client.Submit(request);
  std::vector<std::unique_ptr<tessera::testing::Daemon>> running;
  for (int w = 0; w < workers; ++w) {
    running.push_back(std::make_unique<tessera::testing::Daemon>(
        "cli/tessera",
        std::vector<std::string>{"worker", "--tracker", fleet.tracker_address(), "--parallel", "2"},
        30000, "worker "));
  }
  tessera::testing::WaitFor([&] { return client.Status(job).state() == "done"; }, 3600000);
  double seconds = Millis(Clock::now() - start) / 1000;
  tessera::jobs::v1::JobStatus status = client.Status(job);
  if (status.state() != "done" || status.done() != bench.trials) {
    std::printf("ERROR: the job with %d worker(s) ended %s with %lld of %lld trials\n", workers,
                status.state().c_str(), static_cast<long long>(status.done()),
                static_cast<long long>(bench.trials));
  }
  return seconds;
}

// Seconds for one `tessera tune` to make the same trials on the same kind of fleet.
double TuneSeconds(const JobBench& bench) {
  tessera::testing::Fleet fleet(JobFleetConfig());
  for (int i = 0; i < bench.servers; ++i) fleet.AddServer("bench");
  const tessera::TempDir dir("tessera-bench");  // the tuning log goes when the measurement ends
  std::string command = "cli/tessera tune --task '" + bench.task + "' --target llvm --trials " +
                        std::to_string(bench.trials) + " --batch 8 --build-parallel 2 --db " +
                        dir.path() + "/tune.db --rpc-tracker " + fleet.tracker_address() +
                        " --rpc-key bench > /dev/null 2>&1";
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (access("cli/tessera", X_OK) != 0 && n > 0) {
    command = std::string(self, static_cast<size_t>(n)) + ".runfiles/tessera/" + command;
  }
  Clock::time_point start = Clock::now();
  std::string out;
  int status = tessera::testing::RunCommand(command, &out);
  double seconds = Millis(Clock::now() - start) / 1000;
  if (status != 0) std::printf("ERROR: tessera tune exited %d\n", status);
  return seconds;
}

void JobThroughput(const JobBench& bench) {
  std::printf("tuning jobs: %lld trials of %s, batches of 8, %d device servers, load %s\n",
              static_cast<long long>(bench.trials), bench.task.c_str(), bench.servers,
              LoadAverage().c_str());
  double local = TuneSeconds(bench);
  std::printf("  one tessera tune (same devices):  %7.2f s  %6.2f trials/s\n", local,
              bench.trials / local);
  for (int workers : {1, 2, 4}) {
    double seconds = JobSeconds(bench, workers);
    std::printf("  job, %d worker(s):                 %7.2f s  %6.2f trials/s  (%.2fx tune)\n",
                workers, seconds, bench.trials / seconds, local / seconds);
  }
  std::printf("  (load after: %s)\n", LoadAverage().c_str());
}

// A tuning log of `records` records (`workloads` shapes, one target) pushed into the tracker,
// then `queries` best-record queries for one workload and target, as `tessera log best --task W
// --target T` asks, and the per-task read of `tessera compile --db tracker://`.
void LogBestLatency(int64_t records, int queries) {
  tessera::testing::Fleet fleet;
  tessera::fleet::TrackerOptions options;
  options.address = fleet.tracker_address();
  tessera::fleet::LogClient client(options);
  const int64_t workloads = std::max<int64_t>(1, records / 500);
  std::vector<tessera::tuning::MeasureRecord> batch;
  for (int64_t i = 0; i < records; ++i) {
    batch.push_back(tessera::bench::SyntheticRecord(i, workloads));
  }
  Clock::time_point start = Clock::now();
  tessera::records::ImportResult pushed = client.Push(batch);
  const double push_s = Millis(Clock::now() - start) / 1000;

  tessera::records::RecordFilter one;
  one.workload_key = tessera::bench::SyntheticWorkload(workloads / 2);
  one.target = tessera::bench::kSyntheticTarget;
  std::vector<double> best_ms, list_ms;
  size_t listed = 0;
  for (int q = 0; q < queries; ++q) {
    start = Clock::now();
    tessera::fleet::BestRecords best = client.Best(one);
    best_ms.push_back(Millis(Clock::now() - start));
    if (best.records.size() != 1)
      std::printf("ERROR: best returned %zu records\n", best.records.size());
  }
  one.only_successful = true;
  for (int q = 0; q < std::max(1, queries / 10); ++q) {
    start = Clock::now();
    listed = client.List(one).size();
    list_ms.push_back(Millis(Clock::now() - start));
  }
  std::printf(
      "shared tuning log through the tracker, %lld records (%lld workloads, one target):\n"
      "  push: %lld imported in %.2f s (%.0f records/s)\n"
      "  log best for one workload and target (%d queries): p50 %6.3f ms   p99 %6.3f ms\n"
      "  compile's read of one task (%zu records, %zu queries): p50 %6.3f ms   p99 %6.3f ms\n"
      "  (load %s)\n",
      static_cast<long long>(records), static_cast<long long>(workloads),
      static_cast<long long>(pushed.imported), push_s, pushed.imported / push_s, queries,
      Percentile(best_ms, 0.5), Percentile(best_ms, 0.99), listed, list_ms.size(),
      Percentile(list_ms, 0.5), Percentile(list_ms, 0.99), LoadAverage().c_str());
}

}  // namespace

int main(int argc, char** argv) {
  // The clients stand in for other machines' processes: as in the tracker, no lock-order checks.
  tessera::fleet::SkipMutexDeadlockChecks();
  tessera::bench::GrantBench grants;
  int rounds = 3;
  int64_t mib = 256, log_records = 100000;
  int log_queries = 2000;
  std::string mode = "all";
  CLI::App app{
      "Grant latency of the tracker under a full queue, array copy throughput, and the latency "
      "of a log best query through the tracker.",
      "fleet"};
  app.option_defaults()->always_capture_default();
  app.add_option("--clients", grants.clients, "clients queueing at once")
      ->check(tessera::Positive());
  app.add_option("--servers", grants.servers, "device servers")->check(tessera::Positive());
  app.add_option("--grants-per-client", grants.grants_per_client, "sessions each client asks for")
      ->check(tessera::Positive());
  app.add_option("--hold-ms", grants.hold_ms, "how long a client keeps each session")
      ->check(tessera::NonNegative());
  app.add_option("--client-model", grants.client_model,
                 "async: clients as callback calls on gRPC's few threads; threads: one OS thread "
                 "per client through TrackerClient")
      ->check(CLI::IsMember({"async", "threads"}));
  app.add_flag("--tracker-state", grants.tracker_state,
               "run the tracker with --state (its SQLite state in a temporary directory)");
  app.add_option("--mib", mib, "array size of the copy test")->check(tessera::Positive());
  app.add_option("--rounds", rounds, "copies of the array each way")->check(tessera::Positive());
  app.add_option("--mode", mode, "what to measure ('all' is grants, copy and log)")
      ->check(CLI::IsMember({"all", "grants", "copy", "log", "jobs"}));
  app.add_option("--log-records", log_records, "records in the tracker's shared log")
      ->check(tessera::Positive());
  app.add_option("--log-queries", log_queries, "best-record queries timed")
      ->check(tessera::Positive());
  tessera::bench::StoreLoadOptions store;
  app.add_option("--db", store.db,
                 "with --mode log: load this empty tuning log (a SQLite file or "
                 "postgresql://USER@HOST/DB) directly with --writers and --readers instead of "
                 "timing the tracker's shared log");
  app.add_option("--writers", store.writers, "with --db: threads appending records")
      ->check(tessera::Positive());
  app.add_option("--readers", store.readers, "with --db: threads querying best records")
      ->check(tessera::NonNegative());
  app.add_option("--read-interval-ms", store.read_interval_ms,
                 "with --db: each reader's pause between queries")
      ->check(tessera::NonNegative());
  JobBench job_bench;
  app.add_option("--job-trials", job_bench.trials, "trials of the job")->check(tessera::Positive());
  app.add_option("--job-servers", job_bench.servers, "device servers of the job fleet")
      ->check(tessera::Positive());
  app.add_option("--job-task", job_bench.task, "workload key of the job's task");
  return tessera::RunCommandLine(app, argc, argv, std::cout, std::cerr, [&] {
    if (mode == "all" || mode == "grants") tessera::bench::GrantLatency(grants);
    if (mode == "all" || mode == "copy") {
      Throughput(mib, rounds, false);
      Throughput(mib, rounds, true);
    }
    if (!store.db.empty()) {
      TESSERA_USER_CHECK(mode == "log") << "--db goes with --mode log";
      store.records = log_records;
      tessera::bench::StoreLoad(store);
      return 0;
    }
    if (mode == "all" || mode == "log") LogBestLatency(log_records, log_queries);
    if (mode == "jobs") JobThroughput(job_bench);
    return 0;
  });
}
