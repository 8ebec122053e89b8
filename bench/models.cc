// Whole-model latency: ResNet-18, ResNet-50, MobileNetV2 and a BERT-style encoder (batch 1, fp32;
// `--models bert_encoder`, see bench/models_torch.py) compiled by Tessera (with the tuning log's
// records when --db is given, else fallback configs; at T threads the records of target
// "--target -num-threads=T", else those of the default thread count, which the coverage line
// counts) against ONNX Runtime (onnxruntime-node, when installed in bench/.ort), PyTorch eager and
// torch.jit.freeze, at the
// same thread count. The peers run in their own processes, driven over pipes one run at a time,
// so every side's runs interleave with the others' and all see the same machine load (timing one
// side after the other gave contradictory ratios on a shared machine).
//
// Every side is measured the same way: one idle policy for all (--idle: each framework's own
// default, or all passive), and before each timed run a pause (--settle-ms, so the previous side's
// idle threads have stopped spinning and every side starts from idle pools, as a service between
// requests does) and one untimed warm-up run. The ratios are Tessera's statistic over the peer's.
// `--batch 1,4,16` measures throughput at those batches instead (RunBatches). With a tuning log
// (--db, or --tune N, which first runs `tessera tune` on every model at every thread count) the
// untuned build runs in the same rounds as a fifth side, so that each model's tuned/untuned ratio
// comes from the same minutes as its ratios to the peers.
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <thread>

#include "common/command_line.h"
#include "common/error.h"
#include "common/file.h"
#include "common/json.h"
#include "common/subprocess.h"
#include "compiler/driver/bucket_build.h"
#include "compiler/driver/build_model.h"
#include "compiler/driver/target.h"
#include "compiler/frontend/onnx/onnx_importer.h"
#include "deploy/artifact.h"
#include "deploy/batch_run.h"
#include "deploy/run_model.h"
#include "records/tuning_log.h"
#include "runtime/graph_executor.h"
#include "runtime/thread_pool.h"
#include "tuner/tune/apply_history.h"

namespace tessera {
namespace {

struct Flags {
  std::vector<int> threads = {1};
  int repeat = 20;
  std::string db, target = "llvm -mcpu=native";
  std::vector<std::string> models = {"resnet18", "resnet50", "mobilenet_v2"};
  std::string stat = "median";
  std::string idle = "default";  // "default" (each side's own) or "passive" (all block at once)
  int settle_ms = 200;
  bool json = false;
  std::vector<int64_t> batch;  // --batch 1,4,16: throughput at each batch, from batch buckets
  bool int8 = false;           // --int8: the models quantized by PyTorch, in QDQ form
  int tune_trials = 0;         // --tune N: `tessera tune --trials N` every model first
};

// `--models zoo`: the encoder and torchvision's classification models that export at opset 13
// with batch 1, CNNs of every era and the vision transformer.
const std::vector<std::string> kZooModels = {
    "resnet18",      "resnet50",        "mobilenet_v2",    "bert_encoder",   "vit_b_16",
    "convnext_tiny", "resnext50_32x4d", "efficientnet_b0", "regnet_y_400mf", "shufflenet_v2_x1_0",
    "mnasnet1_0",    "squeezenet1_1",   "densenet121",     "googlenet",      "mobilenet_v3_large"};

bool FileExists(const std::string& path) { return access(path.c_str(), R_OK) == 0; }

// The geometric mean and the largest of `ratios` (model, Tessera / peer), printed as one line.
void PrintRatioSummary(const std::string& peer, int threads,
                       const std::vector<std::pair<std::string, double>>& ratios) {
  if (ratios.empty()) return;
  double log_sum = 0;
  const std::pair<std::string, double>* worst = &ratios[0];
  for (const auto& r : ratios) {
    log_sum += std::log(r.second);
    if (r.second > worst->second) worst = &r;
  }
  std::printf("# vs_%s at %d thread(s) over %zu models: geometric mean %.2f, worst %.2f (%s)\n",
              peer.c_str(), threads, ratios.size(), std::exp(log_sum / ratios.size()),
              worst->second, worst->first.c_str());
}

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The median of `v`, or its minimum for `stat` "min".
double Statistic(std::vector<double> v, const std::string& stat) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return stat == "min" ? v.front() : v[v.size() / 2];
}

// What a side measured over one request: the latency of each run and the CPU time of the whole
// process over them, all its threads together.
struct Timing {
  std::vector<double> ms;
  double cpu_ms = 0;
};

// The CPU time this process has used, all threads, in milliseconds.
double ProcessCpuMs() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
}

// A benchmark process of another framework, asked one line at a time over its stdin; it answers
// each request with one line on its stdout (first "ready", then JSON objects {"ms": [latencies],
// "cpu_ms": CPU time over them}).
class Peer {
 public:
  Peer(std::vector<std::string> argv, const std::map<std::string, std::string>& env)
      : command_(argv[0] + " " + argv[1]) {
    int to[2], from[2];
    if (pipe(to) != 0 || pipe(from) != 0) throw UserError("cannot create pipes for " + command_);
    pid_ = fork();
    if (pid_ == 0) {
      dup2(to[0], 0);
      dup2(from[1], 1);
      close(to[1]);
      close(from[0]);
      for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
      std::vector<char*> args;
      for (std::string& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      execvp(args[0], args.data());
      _exit(127);
    }
    close(to[0]);
    close(from[1]);
    in_ = fdopen(to[1], "w");
    out_ = fdopen(from[0], "r");
    if (ReadLine() != "ready") throw UserError(command_ + " failed to start (see its stderr)");
  }
  ~Peer() {
    std::fclose(in_);
    std::fclose(out_);
    waitpid(pid_, nullptr, 0);
  }
  // Sends `request`, returns what the peer measured.
  Timing Ask(const std::string& request) {
    std::fprintf(in_, "%s\n", request.c_str());
    std::fflush(in_);
    Json reply = ParseJson(ReadLine(), command_ + " output");
    if (!reply.is_object() || !reply.contains("ms") || !reply.contains("cpu_ms")) {
      throw UserError(command_ + " answered '" + reply.dump() +
                      "', not {\"ms\": [...], \"cpu_ms\": ...}");
    }
    return {reply["ms"].get<std::vector<double>>(), reply["cpu_ms"].get<double>()};
  }

 private:
  std::string ReadLine() {
    char* line = nullptr;
    size_t size = 0;
    ssize_t n = getline(&line, &size, out_);
    std::string s = n > 0 ? std::string(line, n) : "";
    std::free(line);
    if (n <= 0) throw UserError(command_ + " ended early (see its stderr)");
    while (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
  }
  std::string command_;
  pid_t pid_ = -1;
  FILE* in_ = nullptr;
  FILE* out_ = nullptr;
};

// Where the ONNX Runtime peer is looked for: under the working directory, the workspace root.
constexpr const char* kOrtPackage = "bench/.ort/node_modules/onnxruntime-node/package.json";
constexpr const char* kOrtInstall =
    "npm install --ignore-scripts --prefix bench/.ort onnxruntime-node, in the workspace root, "
    "and run the bench from there";

bool OrtInstalled() { return access(kOrtPackage, R_OK) == 0; }

// The `tessera` command built beside this benchmark (bazel-bin/cli/tessera, a data dependency).
std::string TesseraCommand() {
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) throw UserError("cannot find this benchmark's own path in /proc/self/exe");
  std::string path(self, n);
  path = path.substr(0, path.rfind('/'));  // .../bin/bench
  path = path.substr(0, path.rfind('/')) + "/cli/tessera";
  if (access(path.c_str(), X_OK) != 0) {
    throw UserError(path + " is not there: bazel build -c opt //cli:tessera (--tune runs it)");
  }
  return path;
}

// `tessera tune ONNX --target TARGET --db DB --trials TRIALS`, what it printed copied to this
// process's stderr once it ends (stdout keeps the table); false when it failed (it said why).
bool TuneModelFile(const std::string& onnx, const std::string& target, const std::string& db,
                   int trials) {
  const std::vector<std::string> argv = {
      TesseraCommand(),      "tune", onnx, "--target", target, "--db", db, "--trials",
      std::to_string(trials)};
  std::cerr << "tuning:";
  for (const std::string& a : argv) std::cerr << " '" << a << "'";
  std::cerr << std::endl;
  const ProgramResult tuned = RunProgram(argv);
  std::cerr << tuned.output;
  if (!tuned.ok()) std::cerr << "tessera tune: " << tuned.Describe() << "\n";
  return tuned.ok();
}

// `--batch 1,4,16`: each model exported with a symbolic batch, compiled by Tessera into one
// artifact of those buckets, run at each batch against ONNX Runtime on the same file, alternating
// run by run; throughput in images (sequences) per second, and Tessera's over ONNX Runtime's.
int RunBatches(const Flags& flags, const std::string& dir, const records::TuningLog* log) {
  if (!OrtInstalled()) {
    throw UserError(std::string("--batch measures against ONNX Runtime, and ") + kOrtPackage +
                    " is not under the working directory (" + kOrtInstall + ")");
  }
  if (!flags.json) {
    std::printf("%-13s %3s %5s %10s %8s %11s %9s %7s\n", "model", "thr", "batch", "tessera_ms",
                "ort_ms", "tessera_i/s", "ort_i/s", "x_ort");
  }
  for (int threads : flags.threads) {
    runtime::SetNumThreads(threads);
    std::vector<std::string> torch_argv = {"/usr/bin/python3", "bench/models_torch.py", dir,
                                           std::to_string(threads), "--dynamic-batch"};
    torch_argv.insert(torch_argv.end(), flags.models.begin(), flags.models.end());
    Peer exporter(torch_argv, {});
    std::vector<std::string> models;
    for (const std::string& model : flags.models) {
      if (FileExists(dir + "/" + model + ".onnx")) models.push_back(model);
    }
    std::vector<std::string> argv = {"node", "bench/models_ort.js", dir, std::to_string(threads),
                                     flags.idle};
    argv.insert(argv.end(), models.begin(), models.end());
    Peer onnxruntime(argv, {});
    for (const std::string& model : models) {
      ModelBuildOptions options;
      options.target = flags.target + " -num-threads=" + std::to_string(threads);
      const tuner::LogConfigSource configs(log);
      options.configs = &configs;
      std::ostringstream warnings;
      options.warnings = &warnings;
      const auto start = std::chrono::steady_clock::now();
      const BucketedBuild buckets =
          BuildBuckets(dir + "/" + model + ".onnx", {}, flags.batch, options);
      const double compile_s = Seconds(start);
      deploy::LoadedModel loaded = deploy::LoadArtifactBytes(
          deploy::SerializeArtifact(buckets.MakeArtifact(options.target)), model);
      deploy::BatchRun run(loaded);
      for (int64_t batch : buckets.batches) {
        deploy::SetInputs(run, {}, batch);
        std::vector<double> tessera_ms, ort_ms;
        for (int round = 0; round < flags.repeat; ++round) {
          for (int k = 0; k < 2; ++k) {
            std::this_thread::sleep_for(std::chrono::milliseconds(flags.settle_ms));
            if ((round + k) % 2 == 0) {
              run.Run();  // the warm-up run
              const auto at = std::chrono::steady_clock::now();
              run.Run();
              tessera_ms.push_back(Seconds(at) * 1e3);
            } else {
              const Timing t = onnxruntime.Ask(model + " 1 1 " + std::to_string(batch));
              ort_ms.insert(ort_ms.end(), t.ms.begin(), t.ms.end());
            }
          }
        }
        const double t = Statistic(tessera_ms, flags.stat), o = Statistic(ort_ms, flags.stat);
        const double t_rate = batch * 1e3 / t, o_rate = o > 0 ? batch * 1e3 / o : 0;
        if (flags.json) {
          PrintJsonLine(Json{{"model", model},
                             {"threads", threads},
                             {"batch", batch},
                             {"compile_s", compile_s},
                             {"tessera_ms", t},
                             {"ort_ms", o > 0 ? Json(o) : Json()},
                             {"tessera_per_s", t_rate},
                             {"ort_per_s", o > 0 ? Json(o_rate) : Json()},
                             {"throughput_vs_ort", o > 0 ? Json(t_rate / o_rate) : Json()}},
                        std::cout);
        } else {
          std::printf("%-13s %3d %5lld %10.2f %8.2f %11.1f %9.1f %7.2f\n", model.c_str(), threads,
                      static_cast<long long>(batch), t, o, t_rate, o_rate,
                      o > 0 ? t_rate / o_rate : 0.0);
        }
        std::fflush(stdout);
      }
    }
  }
  return 0;
}

int Run(const Flags& flags) {
  // The ONNX files and compiled models (600 MB for the four models at two thread counts) go
  // when the run ends, however it ends.
  const TempDir temp("tessera-bench-models");
  const std::string& dir = temp.path();
  const bool tune = flags.tune_trials > 0;
  const std::string db = tune && flags.db.empty() ? dir + "/tuning.db" : flags.db;
  std::unique_ptr<records::TuningLog> log;
  if (!db.empty()) log = records::TuningLog::Open(db, /*create=*/tune);
  if (Target(flags.target).num_threads() != 0) {
    throw UserError("--target '" + flags.target +
                    "': leave -num-threads out, --threads adds it for each thread count");
  }
  if (!flags.batch.empty()) {
    if (tune) {
      throw UserError(
          "--tune with --batch: tune the buckets first (tessera tune M.onnx --buckets "
          "1,4,16 --db tuning.db) and pass --db tuning.db");
    }
    return RunBatches(flags, dir, log.get());
  }
  const bool ort = OrtInstalled();
  if (!ort) {
    std::cerr << "ONNX Runtime not found (" << kOrtPackage << " is not under the working "
              << "directory; " << kOrtInstall << "): its columns are left out\n";
  }
  // Per model and thread count: each thread count takes the records measured at it.
  std::map<std::string, std::unique_ptr<runtime::GraphExecutor>> builds;
  std::map<std::string, double> compile_s;
  std::map<std::string, std::string> coverage;
  const bool passive = flags.idle == "passive";
  if (passive) setenv("TESSERA_WAIT_POLICY", "passive", 1);  // read when the pool is recreated
  if (!flags.json) {
    std::printf(
        "# vs_X = Tessera's %s latency / X's; every side %s when idle; each timed run after a "
        "%d ms pause and one untimed run\n",
        flags.stat.c_str(),
        passive ? "blocks at once (passive policies)" : "waits as its defaults have it",
        flags.settle_ms);
    std::printf("%-13s %3s %9s %10s %8s %9s %8s %7s %9s %8s%s\n", "model", "thr", "compile_s",
                "tessera_ms", "ort_ms", "frozen_ms", "eager_ms", "vs_ort", "vs_frozen", "vs_eager",
                log ? "  untuned_ms untuned_vs_ort vs_untuned" : "");
  }
  // PyTorch's OpenMP and its BLAS (OpenBLAS) have their own idle policies.
  std::map<std::string, std::string> torch_env;
  if (passive) torch_env = {{"OMP_WAIT_POLICY", "PASSIVE"}, {"OPENBLAS_THREAD_TIMEOUT", "4"}};
  for (int threads : flags.threads) {
    runtime::SetNumThreads(threads);
    std::vector<std::string> torch_argv = {"/usr/bin/python3", "bench/models_torch.py", dir,
                                           std::to_string(threads)};
    if (flags.int8) torch_argv.push_back("--int8");
    torch_argv.insert(torch_argv.end(), flags.models.begin(), flags.models.end());
    Peer torch(torch_argv, torch_env);  // exports the .onnx files
    // A model PyTorch could not export (models_torch.py says why) is left out of every side.
    std::vector<std::string> models;
    for (const std::string& model : flags.models) {
      if (FileExists(dir + "/" + model + ".onnx")) models.push_back(model);
    }
    std::unique_ptr<Peer> onnxruntime;
    if (ort) {
      std::vector<std::string> argv = {"node", "bench/models_ort.js", dir, std::to_string(threads),
                                       flags.idle};
      argv.insert(argv.end(), models.begin(), models.end());
      onnxruntime = std::make_unique<Peer>(argv, std::map<std::string, std::string>{});
    }
    std::vector<std::pair<std::string, double>> vs_ort, vs_frozen, untuned_vs_ort, vs_untuned;
    const std::string target = flags.target + " -num-threads=" + std::to_string(threads);
    if (tune) {
      for (const std::string& model : models) {
        if (!TuneModelFile(dir + "/" + model + ".onnx", target, db, flags.tune_trials)) {
          std::printf(
              "# %s at %d thread(s): tuning failed (its output says why); its tuned "
              "build takes what the log has\n",
              model.c_str(), threads);
        }
      }
    }
    // The build of `model` named `name`, configured from `configs_log` (null: untuned); null
    // when the compiler refused it (one model refused does not end the run).
    auto build_once = [&](const std::string& model, const std::string& name,
                          const records::TuningLog* configs_log) -> runtime::GraphExecutor* {
      if (builds.count(name)) return builds[name].get();
      auto start = std::chrono::steady_clock::now();
      ModelBuildOptions options;
      options.target = target;
      const tuner::LogConfigSource configs(configs_log);
      options.configs = &configs;
      std::ostringstream warnings;
      options.warnings = &warnings;
      try {
        ModelBuild build = BuildModel(frontend::ImportOnnx(dir + "/" + model + ".onnx"), options);
        build.Save(dir + "/" + name);
        compile_s[name] = Seconds(start);
        coverage[name] = build.CoverageLine();
        builds[name] = std::make_unique<runtime::GraphExecutor>(
            runtime::GraphExecutor::LoadFromDirectory(dir + "/" + name));
      } catch (const std::exception& e) {
        std::printf("%-13s %3d  not built: %s\n", model.c_str(), threads, e.what());
        std::fflush(stdout);
        builds[name] = nullptr;
      }
      return builds[name].get();
    };
    for (const std::string& model : models) {
      const std::string name = model + "@" + std::to_string(threads);
      runtime::GraphExecutor* built = build_once(model, name, log.get());
      runtime::GraphExecutor* untuned =
          log ? build_once(model, name + "-untuned", nullptr) : nullptr;
      if (!built || (log && !untuned)) continue;
      runtime::GraphExecutor& exec = *built;
      // Random inputs, as the peers get: left unset, the input buffer held whatever memory the
      // build had freed there, and denormal values in it made ResNet and BERT runs 1.5-3x slower
      // in some processes than in others.
      deploy::SetInputs(exec, {});
      if (untuned) deploy::SetInputs(*untuned, {});
      // One run of each side per round, the order rotating, so load changes hit all sides. Each
      // side's request is two runs, the first untimed, after the same pause. Side 4 is the
      // untuned build, beside a tuned one.
      const int sides = untuned ? 5 : 4;
      std::vector<std::vector<double>> ms(5);
      std::vector<double> cpu_ms(5, 0.0);
      auto add = [&](int side, const Timing& timing) {
        ms[side].insert(ms[side].end(), timing.ms.begin(), timing.ms.end());
        cpu_ms[side] += timing.cpu_ms;
      };
      for (int round = 0; round < flags.repeat; ++round) {
        for (int k = 0; k < sides; ++k) {
          int side = (round + k) % sides;
          if (side == 1 && !onnxruntime) continue;
          std::this_thread::sleep_for(std::chrono::milliseconds(flags.settle_ms));
          if (side == 0 || side == 4) {
            runtime::GraphExecutor& run = side == 0 ? exec : *untuned;
            run.Run();  // the warm-up run
            const double cpu_start = ProcessCpuMs();
            auto start = std::chrono::steady_clock::now();
            run.Run();
            const double wall = Seconds(start) * 1e3;
            add(side, {{wall}, ProcessCpuMs() - cpu_start});
          } else if (side == 1) {
            add(1, onnxruntime->Ask(model + " 1 1"));  // no times: ONNX Runtime refused it
          } else if (side == 2) {
            add(2, torch.Ask(model + " frozen 1 1"));
          } else if (side == 3) {
            add(3, torch.Ask(model + " eager 1 1"));
          }
        }
      }
      // Cores each side kept busy: its CPU time over its run time. A side above the thread
      // count ran threads it was not asked for (PyTorch's BLAS did, before models_torch.py set
      // its thread count), and its latencies are not comparable.
      const char* side_names[] = {"tessera", "ort", "frozen", "eager", "untuned"};
      std::vector<double> cores(5, 0.0);
      std::string cores_line = "cores used:";
      for (int side = 0; side < sides; ++side) {
        double wall = 0;
        for (double v : ms[side]) wall += v;
        if (wall <= 0) continue;
        cores[side] = cpu_ms[side] / wall;
        char text[64];
        std::snprintf(text, sizeof(text), " %s %.2f", side_names[side], cores[side]);
        cores_line += text;
        if (cores[side] > threads + 0.25) {
          std::cerr << "warning: " << model << " at " << threads
                    << " thread(s): " << side_names[side] << " kept " << cores[side]
                    << " cores busy; its times are not comparable\n";
        }
      }
      const double t = Statistic(ms[0], flags.stat), o = Statistic(ms[1], flags.stat),
                   f = Statistic(ms[2], flags.stat), e = Statistic(ms[3], flags.stat);
      const double u = Statistic(ms[4], flags.stat);  // 0 without an untuned side
      const bool has_ort = ort && o > 0;
      if (has_ort) vs_ort.push_back({model, t / o});
      vs_frozen.push_back({model, t / f});
      if (untuned && has_ort) untuned_vs_ort.push_back({model, u / o});
      if (untuned) vs_untuned.push_back({model, t / u});
      if (flags.json) {
        PrintJsonLine(Json{{"model", model},
                           {"threads", threads},
                           {"stat", flags.stat},
                           {"idle", flags.idle},
                           {"settle_ms", flags.settle_ms},
                           {"compile_s", compile_s[name]},
                           {"tessera_ms", t},
                           {"ort_ms", has_ort ? Json(o) : Json()},
                           {"frozen_ms", f},
                           {"eager_ms", e},
                           {"ratio_vs_ort", has_ort ? Json(t / o) : Json()},
                           {"ratio_vs_frozen", t / f},
                           {"ratio_vs_eager", t / e},
                           {"cores_used", Json{{"tessera", cores[0]},
                                               {"ort", ort ? Json(cores[1]) : Json()},
                                               {"frozen", cores[2]},
                                               {"eager", cores[3]}}},
                           {"coverage", coverage[name]},
                           {"untuned_ms", untuned ? Json(u) : Json()},
                           {"untuned_ratio_vs_ort", untuned && has_ort ? Json(u / o) : Json()},
                           {"ratio_vs_untuned", untuned ? Json(t / u) : Json()}},
                      std::cout);
      } else {
        std::printf("%-13s %3d %9.2f %10.2f %8.2f %9.2f %8.2f %7.2f %9.2f %8.2f", model.c_str(),
                    threads, compile_s[name], t, o, f, e, has_ort ? t / o : 0.0, t / f, t / e);
        if (untuned) {
          std::printf("  %10.2f %14.2f %10.2f", u, has_ort ? u / o : 0.0, t / u);
        }
        std::printf("\n");
        std::printf("  %s\n  %s\n", coverage[name].substr(0, 150).c_str(), cores_line.c_str());
      }
      std::fflush(stdout);
    }
    if (!flags.json) {
      PrintRatioSummary("ort", threads, vs_ort);
      PrintRatioSummary("frozen", threads, vs_frozen);
      PrintRatioSummary("ort (untuned)", threads, untuned_vs_ort);
      PrintRatioSummary("untuned (tuned / untuned)", threads, vs_untuned);
    }
  }
  return 0;
}

}  // namespace
}  // namespace tessera

int main(int argc, char** argv) {
  tessera::Flags flags;
  CLI::App app{
      "Batch-1 fp32 latency of whole models: Tessera against ONNX Runtime, PyTorch frozen and "
      "eager, run by run interleaved (medians; ratios are Tessera / peer, smaller is better).",
      "models"};
  app.add_option("--threads", flags.threads, "thread counts, e.g. 1,2 (every side uses the same)")
      ->delimiter(',')
      ->check(tessera::Positive());
  app.add_option("--repeat", flags.repeat, "timed runs per model and side (median)")
      ->check(tessera::Positive());
  app.add_option("--db", flags.db,
                 "tuning log whose best records to use; the untuned build runs beside, in the "
                 "same rounds (untuned_ms, vs_untuned: tuned / untuned)");
  app.add_option("--tune", flags.tune_trials,
                 "first run `tessera tune M.onnx --trials N` on every model at every thread "
                 "count, into --db (or a log of the run's own), its output on stderr; then time "
                 "the tuned and untuned builds")
      ->check(tessera::Positive());
  app.add_option("--target", flags.target,
                 "target string; each thread count T builds for it with -num-threads=T");
  app.add_option("--models", flags.models,
                 "torchvision model names or bert_encoder, e.g. resnet18,bert_encoder; zoo: the "
                 "encoder and 14 torchvision classification models (a summary line gives the "
                 "geometric mean and the worst ratio)")
      ->delimiter(',');
  app.add_option("--stat", flags.stat,
                 "per side: the median of the runs, or their minimum (on a machine shared with "
                 "other work the least disturbed run)")
      ->check(CLI::IsMember({"median", "min"}));
  app.add_option("--idle", flags.idle,
                 "idle policy of every side's threads: each framework's default, or all passive "
                 "(block at once: OMP_WAIT_POLICY=PASSIVE, ONNX Runtime without spinning, "
                 "TESSERA_WAIT_POLICY=passive)")
      ->check(CLI::IsMember({"default", "passive"}));
  app.add_option("--settle-ms", flags.settle_ms,
                 "pause before each side's warm-up and timed run, so every side starts idle")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--json", flags.json, "one JSON line per model and thread count");
  app.add_flag(
      "--int8", flags.int8,
      "int8 models: each quantized by PyTorch's own tools (tools/make_quantized_models.py: "
      "per-channel weights, calibrated on random data) and exported in QDQ form; every "
      "side runs that model (PyTorch its quantized module, on its onednn engine)");
  app.add_option("--batch", flags.batch,
                 "batch buckets, e.g. 1,4,16: throughput at each against ONNX Runtime on the same "
                 "file exported with a symbolic batch, one artifact of those buckets (x_ort: "
                 "Tessera's images/s over ONNX Runtime's, larger is better)")
      ->delimiter(',')
      ->check(tessera::Positive());
  // `bazel run` starts in the runfiles; the peers' scripts and bench/.ort are in the workspace.
  if (const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY")) {
    if (chdir(workspace) != 0) std::cerr << "cannot enter " << workspace << "\n";
  }
  return tessera::RunCommandLine(app, argc, argv, std::cout, std::cerr, [&] {
    if (std::find(flags.models.begin(), flags.models.end(), "zoo") != flags.models.end()) {
      flags.models = tessera::kZooModels;
    }
    return tessera::Run(flags);
  });
}
