// `tessera job submit|list|status|watch|cancel`: tuning jobs on the tracker. A model job's tasks
// and trial shares are worked out here, so the tracker never sees ONNX.
#include <google/protobuf/message.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <memory>
#include <thread>

#include "cli/commands.h"
#include "common/command_line.h"
#include "common/error.h"
#include "common/proto_json.h"
#include "compiler/driver/build_model.h"
#include "compiler/driver/target.h"
#include "compiler/task/task.h"
#include "fleet/client/job_client.h"
#include "fleet/secrets.h"
#include "tuner/measure/task_measure.h"
#include "tuner/tune/model_tasks.h"
#include "tuner/tune/trial_shares.h"

namespace tessera {
namespace cli {
namespace {

struct JobFlags {
  std::string tracker = "127.0.0.1:9190", token_file, tls_ca;
  bool json = false;
  // submit
  std::string model, target, rpc_key, tuner = "xgb", user;
  std::vector<std::string> tasks, input_shapes;
  tuner::BatchBuckets buckets;  // --batch-buckets, --batch-weights, --batch-dim
  int64_t trials = 0;
  int priority = 0;
  int batch = 8;
  std::string cold_weights = "auto";  // --cold-weights
  // status, watch, cancel
  std::string job_id;
  int64_t interval_ms = 2000;
};

fleet::JobClient Client(const JobFlags& flags) {
  fleet::TrackerOptions options;
  options.address = flags.tracker;
  if (!flags.token_file.empty()) options.token = fleet::ReadTokenFile(flags.token_file);
  options.tls_ca_file = flags.tls_ca;
  options.retry_window_ms = 5000;
  options.rpc_timeout_ms = 10000;
  return fleet::JobClient(options);
}

std::string Duration(double seconds) {
  if (seconds < 0) return "-";
  char buf[32];
  int64_t s = std::llround(seconds);
  std::snprintf(buf, sizeof(buf), "%lldm%02llds", static_cast<long long>(s / 60),
                static_cast<long long>(s % 60));
  return buf;
}

std::string Millis(double seconds) {
  if (seconds <= 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4g ms", seconds * 1e3);
  return buf;
}

void PrintJson(const google::protobuf::Message& message) {
  std::cout << ProtoToJson(message, "a job") << "\n";
}

void PrintStatus(const jobs::v1::JobStatus& job, std::ostream& out) {
  out << "job " << job.job_id() << "  " << job.state() << "  user " << job.user() << "  priority "
      << job.priority() << "  target '" << job.target() << "'  key " << job.rpc_key() << "  "
      << job.tuner() << (job.name().empty() ? "" : "  " + job.name()) << "\n";
  out << "  " << job.done() << "/" << job.trials() << " trials, " << job.workers()
      << " batch(es) out, ETA " << Duration(job.eta_s()) << "\n";
  out << "  " << std::left << std::setw(44) << "TASK" << std::setw(14) << "TRIALS" << std::setw(8)
      << "FAILED" << std::setw(14) << "BEST"
      << "ETA\n";
  for (const jobs::v1::TaskStatus& task : job.tasks()) {
    char failed[16];
    std::snprintf(failed, sizeof(failed), "%.0f%%",
                  task.done() > 0 ? 100.0 * task.failed() / task.done() : 0.0);
    out << "  " << std::setw(44) << task.workload_key() << std::setw(14)
        << (std::to_string(task.done()) + "/" + std::to_string(task.trials())) << std::setw(8)
        << failed << std::setw(14) << Millis(task.best_cost())
        << (task.exhausted() ? "exhausted" : Duration(task.eta_s()))
        << (task.cold_weights() ? "  (cold weights)" : "") << "\n";
  }
}

void Submit(const JobFlags& flags) {
  if (flags.model.empty() == flags.tasks.empty()) {
    throw UserError(
        "tessera job submit: give either a model (tessera job submit model.onnx ...) or --task "
        "KEY (repeatable), not both or neither");
  }
  if (!flags.input_shapes.empty() && flags.model.empty()) {
    throw UserError("tessera job submit: --input-shape applies to a model, not to --task");
  }
  if (flags.buckets.given() && flags.model.empty()) {
    throw UserError(
        "tessera job submit: --batch-buckets, --batch-weights and --batch-dim apply to a model, "
        "not to --task");
  }
  tuner::CheckTarget(flags.target);
  if (flags.cold_weights == "on" && Target(flags.target).kind() == TargetKind::kCUDA) {
    throw UserError(
        "tessera job submit: --cold-weights on is for CPU targets (a GPU's memory is "
        "not in the CPU caches)");
  }
  jobs::v1::SubmitRequest request;
  if (!flags.model.empty()) {
    std::vector<ModelTask> tasks =
        tuner::ExtractModelTasks(flags.model, flags.input_shapes, flags.target, flags.buckets);
    if (tasks.empty()) throw UserError(flags.model + ": the model has no tunable task");
    tuner::ApplyColdWeights(flags.cold_weights, &tasks);
    std::vector<int64_t> shares = tuner::TrialShares(tasks, flags.trials);
    for (size_t i = 0; i < tasks.size(); ++i) {
      jobs::v1::TaskSpec* spec = request.add_tasks();
      spec->set_workload_key(tasks[i].workload_key);
      spec->set_trials(shares[i]);
      spec->set_weight(tasks[i].weight);
      spec->set_alternative_to(tasks[i].alternative_to);
      spec->set_cold_weights(tasks[i].cold_weights);
    }
    request.set_name(flags.model.substr(flags.model.find_last_of('/') + 1));
  } else {
    for (const std::string& key : flags.tasks) {
      const task::Task task(key, flags.target);
      const std::string note =
          TemplateOfAnotherFamilyNote(task.workload_key(), task.templ().name, flags.target);
      if (!note.empty()) std::cerr << note << "\n";
      jobs::v1::TaskSpec* spec = request.add_tasks();
      spec->set_workload_key(task.workload_key());  // canonical
      spec->set_trials(flags.trials);
      spec->set_cold_weights(tuner::ColdWeightsOfTask(flags.cold_weights));
    }
  }
  request.set_target(flags.target);
  request.set_rpc_key(flags.rpc_key);
  request.set_priority(flags.priority);
  const char* login = std::getenv("USER");
  request.set_user(!flags.user.empty() ? flags.user : login ? login : "anonymous");
  request.set_tuner(flags.tuner);
  request.set_batch_size(flags.batch);
  std::string id = Client(flags).Submit(request);
  if (flags.json) {
    jobs::v1::SubmitReply reply;
    reply.set_job_id(id);
    PrintJson(reply);
  } else {
    std::cout << id << "\n";
  }
}

void List(const JobFlags& flags) {
  jobs::v1::JobList list = Client(flags).List();
  if (flags.json) return PrintJson(list);
  if (list.jobs().empty()) std::cout << "no jobs\n";
  for (const jobs::v1::JobStatus& job : list.jobs()) {
    std::cout << std::left << std::setw(18) << job.job_id() << std::setw(11) << job.state()
              << std::setw(12) << job.user() << std::setw(12)
              << (std::to_string(job.done()) + "/" + std::to_string(job.trials())) << "ETA "
              << std::setw(9) << Duration(job.eta_s()) << job.tasks_size() << " task(s), key "
              << job.rpc_key() << ", '" << job.target() << "'"
              << (job.name().empty() ? "" : ", " + job.name()) << "\n";
  }
}

void Status(const JobFlags& flags) {
  jobs::v1::JobStatus job = Client(flags).Status(flags.job_id);
  if (flags.json) return PrintJson(job);
  PrintStatus(job, std::cout);
}

void Watch(const JobFlags& flags) {
  fleet::JobClient client = Client(flags);
  while (true) {
    jobs::v1::JobStatus job = client.Status(flags.job_id);
    if (flags.json) {
      PrintJson(job);
    } else {
      PrintStatus(job, std::cout);
    }
    std::cout << std::flush;
    if (job.state() == "done") return;
    if (job.state() == "cancelled") throw CLI::RuntimeError(kExitFailed);
    std::this_thread::sleep_for(std::chrono::milliseconds(flags.interval_ms));
  }
}

void Cancel(const JobFlags& flags) {
  jobs::v1::JobStatus job = Client(flags).Cancel(flags.job_id);
  if (flags.json) return PrintJson(job);
  std::cout << "job " << job.job_id() << " " << job.state() << " (" << job.done() << "/"
            << job.trials() << " trials done)\n";
}

void AddTrackerOptions(CLI::App* command, JobFlags* flags) {
  command->option_defaults()->always_capture_default();
  command->add_option("--tracker", flags->tracker, "the tracker's address")->check(HostPort());
  command->add_option("--token-file", flags->token_file, "the fleet's shared token")
      ->check(CLI::ExistingFile);
  command->add_option("--tls-ca", flags->tls_ca, "PEM root certificate of a TLS tracker");
  command->add_flag("--json", flags->json, "print JSON");
}

}  // namespace

void AddJobCommand(CLI::App& app) {
  auto flags = std::make_shared<JobFlags>();
  CLI::App* job = app.add_subcommand(
      "job",
      "Tuning jobs on the tracker: submit, then close the laptop; workers (tessera worker) tune.\n"
      "  e.g. tessera job submit --task 'dense.arm(1024,1024,1024,float32)' --target 'llvm "
      "-mtriple=aarch64-linux-gnu -mcpu=cortex-a72' --rpc-key a72 --trials 500 --tracker "
      "tracker:9190\n"
      "       tessera job watch JOB_ID --tracker tracker:9190");
  job->require_subcommand(1);

  CLI::App* submit = job->add_subcommand("submit", "submit a job; prints its id");
  AddTrackerOptions(submit, flags.get());
  submit->add_option("model", flags->model, "ONNX model whose tunable tasks to tune")
      ->check(CLI::ExistingFile);
  submit->add_option("--task", flags->tasks, "workload key of a task to tune (repeatable)");
  submit->add_option("--input-shape", flags->input_shapes,
                     "model: static shape of an input, NAME:1x3x224x224 (repeatable)");
  submit
      ->add_option("--batch-buckets", flags->buckets.sizes,
                   "model: tune the builds of these batch sizes of a model with a symbolic "
                   "batch, e.g. 1,4,16 (as `tessera compile --batch`)")
      ->delimiter(',');
  submit
      ->add_option("--batch-weights", flags->buckets.weights,
                   "model: how often each bucket runs, relatively (default: equally)")
      ->delimiter(',');
  submit->add_option("--batch-dim", flags->buckets.dim,
                     "model: the symbolic dimension that is the batch (default: the inputs' "
                     "first)");
  submit
      ->add_option("--target", flags->target,
                   "target string, e.g. 'llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72'")
      ->required();
  submit->add_option("--rpc-key", flags->rpc_key, "device key of the fleet devices to measure on")
      ->required();
  submit->add_option("--trials", flags->trials, "trials per task (model: in all, shared by weight)")
      ->required()
      ->check(Positive());
  submit->add_option("--priority", flags->priority, "higher first (-1000..1000)")
      ->check(CLI::Range(-1000, 1000));
  submit->add_option("--tuner", flags->tuner, "search strategy")
      ->check(CLI::IsMember({"xgb", "ga", "random", "grid"}));
  submit->add_option("--batch", flags->batch, "trials per leased batch")
      ->check(CLI::Range(1, 1024));
  submit->add_option("--user", flags->user, "whose job (fair sharing); default $USER");
  submit
      ->add_option("--cold-weights", flags->cold_weights,
                   "time kernels with their weights evicted from the CPU caches, as `tessera "
                   "tune --cold-weights` (auto: a model's when its weights exceed the target's "
                   "cache, a --task's never)")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  submit->callback([flags] { Submit(*flags); });

  CLI::App* list = job->add_subcommand("list", "every job with its progress");
  AddTrackerOptions(list, flags.get());
  list->callback([flags] { List(*flags); });

  CLI::App* status = job->add_subcommand("status", "a job's progress per task");
  AddTrackerOptions(status, flags.get());
  status->add_option("id", flags->job_id, "job id")->required();
  status->callback([flags] { Status(*flags); });

  CLI::App* watch = job->add_subcommand(
      "watch", "print a job's progress until it is done (exit 0) or cancelled (exit 1)");
  AddTrackerOptions(watch, flags.get());
  watch->add_option("id", flags->job_id, "job id")->required();
  watch->add_option("--interval-ms", flags->interval_ms, "time between updates")->check(Positive());
  watch->callback([flags] { Watch(*flags); });

  CLI::App* cancel = job->add_subcommand("cancel", "stop a job and its leases (records stay)");
  AddTrackerOptions(cancel, flags.get());
  cancel->add_option("id", flags->job_id, "job id")->required();
  cancel->callback([flags] { Cancel(*flags); });
}

}  // namespace cli
}  // namespace tessera
