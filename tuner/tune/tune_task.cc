#include "tuner/tune/tune_task.h"

#include "compiler/driver/target.h"
#include "compiler/support/error.h"
#include "tuner/cost_model/knob_features.h"
#include "tuner/cost_model/loop_nest_features.h"
#include "tuner/cost_model/transfer.h"
#include "tuner/measure/device_arch.h"
#include "tuner/measure/rpc_measurer.h"
#include "tuner/search/genetic_tuner.h"
#include "tuner/search/grid_tuner.h"
#include "tuner/search/log_history.h"
#include "tuner/search/model_based_tuner.h"
#include "tuner/search/random_tuner.h"
#include "tuner/tune/apply_history.h"

namespace tessera {
namespace tuner {
namespace {}  // namespace

FeatureFn TaskFeatureFn(const task::Task& task, const std::string& kind) {
  std::string key = task.workload_key();
  if (kind == "knob") {
    return [key](const space::ConfigEntity& c) { return CandidateFeatures(c, key); };
  }
  TESSERA_USER_CHECK(kind == "loop")
      << "unknown feature kind '" << kind << "' (expected knob or loop)";
  return [task, key](const space::ConfigEntity& c) {
    std::vector<float> row = CandidateFeatures(c, key);
    std::vector<float> loops;
    try {
      loops = LoopNestFeatures(LowerCandidate(task, c)->body);
    } catch (const UserError&) {
      loops.assign(LoopNestFeatureCount(), -1.f);  // cannot lower: the measurement will say why
    }
    row.insert(row.end(), loops.begin(), loops.end());
    return row;
  };
}

std::unique_ptr<Tuner> MakeTuner(const std::string& name, const task::Task& task, uint64_t seed) {
  if (name == "xgb") {
    return std::make_unique<ModelBasedTuner>(task.config_space(), seed,
                                             TaskFeatureFn(task, "knob"));
  }
  if (name == "ga") return std::make_unique<GeneticTuner>(task.config_space(), seed);
  if (name == "random") return std::make_unique<RandomTuner>(task.config_space(), seed);
  if (name == "grid") return std::make_unique<GridTuner>(task.config_space());
  TESSERA_USER_ERROR() << "unknown tuner '" << name << "' (expected xgb, ga, random or grid)";
  return nullptr;
}

namespace {

// Cold weights leave the CPU caches only: a GPU's kernels cannot be timed so.
void CheckColdWeights(const task::Task& task, const RunOptions& run) {
  TESSERA_USER_CHECK(!run.cold_weights || Target(task.target()).kind() != TargetKind::kCUDA)
      << "target '" << task.target()
      << "': cold weights are for CPU targets (a GPU's memory is not in the CPU caches); tune it "
         "without --cold-weights on";
}

// The search strategy of `options` for `task`; the xgb one learns from `log`'s other shapes
// when `options.transfer` allows (`transferred` says whether it did).
std::unique_ptr<Tuner> MakeTaskTuner(const task::Task& task, const records::TuningLog& log,
                                     const TuneTaskOptions& options, bool* transferred) {
  if (options.tuner != "xgb") return MakeTuner(options.tuner, task, options.seed);
  FeatureFn features = TaskFeatureFn(task, options.features);
  ModelBasedOptions model_options;
  if (options.features == "loop") {
    // Every annealing step lowers its proposals: fewer, shorter chains keep a plan affordable.
    model_options.annealing.iterations = 60;
    model_options.annealing.chains = 32;
    model_options.annealing.early_stop = 15;
  }
  auto model_based =
      std::make_unique<ModelBasedTuner>(task.config_space(), options.seed, features, model_options);
  // Transfer needs rows that other shapes' records can produce without their schedules.
  if (options.transfer && options.features == "knob") {
    int64_t width = static_cast<int64_t>(
        CandidateFeatures(task.config_space().Fallback(), task.workload_key()).size());
    TrainingSet history =
        HistoryFromLog(log, task.workload_key(), task.target(), width, task.templ().version);
    if (history.features.rows() > 0 && history.features.rows() >= options.transfer_min_records) {
      model_based->SetTransferHistory(std::move(history));
      *transferred = true;
    }
  }
  return model_based;
}

}  // namespace

TuneTaskResult TuneTask(const task::Task& task, records::TuningLog* log,
                        const TuneTaskOptions& options, const ProgressFn& progress) {
  CheckTarget(task.target());
  CheckColdWeights(task, options.run);
  TuneTaskResult result;
  LoadedHistory history =
      TrialsFromLog(*log, task.workload_key(), task.target(), task.config_space(),
                    task.templ().version, options.run.cold_weights);
  result.resumed = static_cast<int64_t>(history.trials.size());
  std::unique_ptr<Tuner> tuner = MakeTaskTuner(task, *log, options, &result.transferred);
  tuner->LoadHistory(history.trials);
  if (options.fallback_first) tuner->MeasureFirst({task.config_space().Fallback()});
  tuner->MeasureFirst(options.seed_configs);

  std::string device_key = options.device_key;
  MeasureBatchFn measure;
  std::shared_ptr<RpcMeasurer> remote;
  if (!options.rpc_tracker.empty()) {
    TESSERA_USER_CHECK(DefaultThreadsTarget(task.target()) == task.target())
        << "target '" << task.target() << "': -num-threads is measured on this machine only; "
        << "fleet devices time at their own thread count (start their rpc_servers with "
        << "TESSERA_NUM_THREADS=N and tune a target without -num-threads)";
    RpcMeasureOptions rpc;
    rpc.tracker = options.rpc_tracker;
    rpc.key = options.rpc_key;
    rpc.token = options.rpc_token;
    rpc.measure = options.measure;
    rpc.run = options.run;
    remote = std::make_shared<RpcMeasurer>(task, rpc);
    measure = [remote](const std::vector<space::ConfigEntity>& b) { return remote->Measure(b); };
    device_key = options.rpc_key;
  } else {
    CheckRunsOnThisHost(task.target());
    auto local = std::make_shared<LocalMeasurer>(
        TaskBuildFn(task), TaskRunFn(task, options.run, options.fixture), options.measure);
    measure = [local](const std::vector<space::ConfigEntity>& b) { return local->Measure(b); };
  }
  TuneOptions tune;
  tune.trials = options.trials;
  tune.batch_size = options.batch_size;
  tune.early_stopping = options.early_stopping;
  result.search =
      tuner->Tune(tune, measure, [&](const TuneProgress& p, const std::vector<Trial>& trials) {
        std::vector<tuning::MeasureRecord> records;
        for (const Trial& t : trials) {
          records.push_back(
              RecordOfTrial(t, task.workload_key(), task.target(), device_key, kTunerVersion));
          records.back().set_template_version(task.templ().version);
          records.back().set_cold_weights(options.run.cold_weights);
        }
        log->AppendBatch(records);
        if (progress) progress(p, trials);
      });
  if (remote) result.requeued = remote->requeued();
  return result;
}

}  // namespace tuner
}  // namespace tessera
