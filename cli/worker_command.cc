// `tessera worker`: a tuner worker that leases batches of the tracker's tuning jobs, tunes them
// on fleet devices of each job's key, and reports the records.
#include <atomic>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "common/command_line.h"
#include "fleet/secrets.h"
#include "tuner/worker/job_worker.h"

namespace tessera {
namespace cli {
namespace {

struct WorkerFlags {
  tuner::WorkerOptions options;
  std::string token_file;
};

void Work(WorkerFlags& flags) {
  tuner::WorkerOptions& options = flags.options;
  if (!flags.token_file.empty()) options.tracker.token = fleet::ReadTokenFile(flags.token_file);
  if (options.worker_id.empty()) options.worker_id = tuner::DefaultWorkerId();
  // A tracker restarting must not end the worker: its calls retry for a while.
  options.tracker.retry_window_ms = 60000;
  options.tracker.rpc_timeout_ms = 30000;
  std::cout << "worker " << options.worker_id << " leasing from " << options.tracker.address
            << std::endl;
  std::atomic<bool> stop{false};
  tuner::RunWorker(options, stop, [](const tuner::BatchOutcome& batch) {
    std::cerr << "job " << batch.lease.job_id() << " " << batch.lease.workload_key() << ": "
              << batch.measured << "/" << batch.lease.trials() << " measured";
    if (!batch.error.empty()) std::cerr << ", cannot be tuned here: " << batch.error;
    if (batch.reply) {
      std::cerr << ", " << batch.reply->accepted() << " accepted, " << batch.reply->duplicates()
                << " duplicate(s), " << batch.reply->device_lost() << " device-lost";
    } else {
      std::cerr << ", dropped: the lease was over (expired or cancelled)";
    }
    std::cerr << std::endl;
  });
}

}  // namespace

void AddWorkerCommand(CLI::App& app) {
  auto flags = std::make_shared<WorkerFlags>();
  tuner::WorkerOptions& o = flags->options;
  o.measure.build_timeout_s = 60;
  CLI::App* worker = app.add_subcommand(
      "worker",
      "Tune the tracker's jobs: lease a batch, build candidates here, measure them on fleet "
      "devices of the job's key, report the records; repeat.\n"
      "  e.g. tessera worker --tracker tracker:9190 --parallel 8 --token-file fleet.token");
  worker->option_defaults()->always_capture_default();
  worker->add_option("--tracker", o.tracker.address, "the tracker's address")
      ->required()
      ->check(HostPort());
  worker->add_option("--parallel", o.measure.build_parallel, "candidates built at once")
      ->check(Positive());
  worker->add_option("--token-file", flags->token_file, "the fleet's shared token")
      ->check(CLI::ExistingFile);
  worker->add_option("--tls-ca", o.tracker.tls_ca_file, "PEM root certificate of a TLS tracker");
  worker->add_option("--worker-id", o.worker_id, "name in the tracker's log (default HOST-PID-ID)");
  worker->add_option("--idle-poll-ms", o.idle_poll_ms, "ask for work this often when idle")
      ->check(Positive());
  worker->add_flag("--exit-when-idle", o.exit_when_idle, "stop when the tracker has no work");
  worker->add_option("--number", o.run.number, "calls per timing")->check(Positive());
  worker->add_option("--repeat", o.run.repeat, "timings per candidate")->check(Positive());
  worker->add_option("--build-timeout", o.measure.build_timeout_s, "seconds per build")
      ->check(Positive());
  worker->callback([flags] { Work(*flags); });
}

}  // namespace cli
}  // namespace tessera
