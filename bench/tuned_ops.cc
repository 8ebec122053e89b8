// Tuned operators against vendor libraries in the same process: for each dense task, the best
// configuration in the tuning log (and the untuned fallback) against OpenBLAS cblas_sgemm, at
// each thread count; conv2d_NCHWc.x86 tasks against oneDNN (primitive time); every other task
// against its fallback and plain default schedule.
//
//   bazel run -c opt //bench:tuned_ops -- --db tuning.db [--task
//   'dense.x86(1024,1024,1024,float32)']
//       [--target 'llvm -mcpu=native'] [--threads 1,2] [--repeat 10] [--json]
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bench/onednn_conv.h"
#include "compiler/driver/build.h"
#include "compiler/lower/lower.h"
#include "runtime/ndarray.h"
#include "runtime/thread_pool.h"
#include "tuner/log/tuning_log.h"
#include "tuner/measure/task_measure.h"
#include "tuner/tune/apply_history.h"

extern "C" void openblas_set_num_threads(int num_threads);

namespace {

using namespace tessera;

struct Options {
  std::string db;
  std::vector<std::string> tasks = {"dense.x86(1024,1024,1024,float32)"};
  std::string target = "llvm -mcpu=native";
  std::vector<int> threads = {1, 2};
  int repeat = 10;
  bool json = false;
};

[[noreturn]] void Usage(const std::string& why) {
  std::fprintf(stderr,
               "tuned_ops: %s\nusage: tuned_ops --db FILE [--task WORKLOAD]... [--target T] "
               "[--threads 1,2] [--repeat R] [--json]\n",
               why.c_str());
  std::exit(2);
}

Options ParseOptions(int argc, char** argv) {
  Options o;
  bool tasks_given = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Usage("missing value after " + arg);
      return argv[++i];
    };
    if (arg == "--db") {
      o.db = value();
    } else if (arg == "--task") {
      if (!tasks_given) o.tasks.clear();
      tasks_given = true;
      o.tasks.push_back(value());
    } else if (arg == "--target") {
      o.target = value();
    } else if (arg == "--threads") {
      o.threads.clear();
      std::stringstream in(value());
      std::string item;
      while (std::getline(in, item, ',')) o.threads.push_back(std::atoi(item.c_str()));
    } else if (arg == "--repeat") {
      o.repeat = std::atoi(value().c_str());
    } else if (arg == "--json") {
      o.json = true;
    } else {
      Usage("unknown option " + arg);
    }
  }
  if (o.db.empty()) Usage("--db is required");
  if (o.repeat < 1) Usage("--repeat must be at least 1");
  for (int t : o.threads) {
    if (t < 1) Usage("--threads takes positive counts");
  }
  return o;
}

template <typename F>
double BestSeconds(int repeat, F&& run) {
  run();  // warm up: page faults, thread pool start
  double best = 1e30;
  for (int r = 0; r < repeat; ++r) {
    auto start = std::chrono::steady_clock::now();
    run();
    best = std::min(
        best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

runtime::PackedFunc Compile(const tuner::Task& task, const space::ConfigEntity& config,
                            runtime::Module* keep) {
  topi::ScheduledOp op = task.Instantiate(config);
  *keep = build(op.schedule, op.args, Target(task.target()), "op");
  return (*keep)["op"];
}

// oneDNN's time for a conv2d_NCHWc.x86 task, or 0 for other templates (no vendor baseline here).
double VendorSeconds(const tuner::Task& task, int threads, int repeat) {
  if (task.templ().name != "conv2d_NCHWc.x86") return 0;
  const auto& a = task.args().ints;  // (N,C,H,W,K,R,S,stride,pad)
  return bench::OneDnnConv2dSeconds({a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]}, threads,
                                    repeat);
}

// Operators other than dense: the log's best config against the fallback, the plain untuned
// compute, and oneDNN for conv2d.
bool RunWithoutVendor(const tuner::Task& task, const tuner::TuningLog& log, const Options& o) {
  auto fixture = tuner::MakeTaskFixture(task, 1);
  std::vector<runtime::NDArray> arrays;
  for (size_t i = 0; i < fixture->shapes.size(); ++i) {
    arrays.push_back(runtime::NDArray::Empty(fixture->shapes[i], DLDataType{kDLFloat, 32, 1},
                                             DLDevice{kDLCPU, 0}));
    if (i < fixture->inputs.size()) {
      arrays.back().CopyFromBytes(fixture->inputs[i].data(),
                                  fixture->inputs[i].size() * sizeof(float));
    }
  }
  std::vector<TesseraValue> values(arrays.size());
  std::vector<int32_t> codes(arrays.size());
  for (size_t i = 0; i < arrays.size(); ++i) {
    runtime::PackedFunc::SetArg(&values[i], &codes[i], arrays[i]);
  }
  runtime::PackedArgs args(values.data(), codes.data(), static_cast<int>(arrays.size()));
  tuner::ChosenConfig tuned = tuner::ChooseConfig(task, &log, std::cerr);
  runtime::Module tuned_module, fallback_module;
  runtime::PackedFunc tuned_fn = Compile(task, tuned.config, &tuned_module);
  runtime::PackedFunc fallback_fn = Compile(task, task.config_space().Fallback(), &fallback_module);
  topi::ScheduledOp plain = task.templ().baseline(task.args());
  runtime::Module plain_module = build(plain.schedule, plain.args, Target(task.target()), "op");
  runtime::PackedFunc plain_fn = plain_module["op"];
  auto call = [&](const runtime::PackedFunc& f) {
    runtime::RetValue ret;
    f.CallPacked(args, &ret);
  };
  call(tuned_fn);
  std::string mismatch = tuner::CompareOutput(*fixture, arrays.back().Data<float>(), 1e-3, 1e-3);
  bool correct = mismatch.empty();
  for (int threads : o.threads) {
    runtime::SetNumThreads(threads);
    double tuned_s = BestSeconds(o.repeat, [&] { call(tuned_fn); });
    double fallback_s = BestSeconds(o.repeat, [&] { call(fallback_fn); });
    double plain_s = BestSeconds(std::min(o.repeat, 3), [&] { call(plain_fn); });
    double vendor_s = VendorSeconds(task, threads, o.repeat);
    double gf = plain.flops / 1e9;
    if (o.json) {
      std::printf(
          "{\"benchmark\":\"tuned_ops\",\"task\":\"%s\",\"target\":\"%s\",\"threads\":%d,"
          "\"tuned_from_log\":%s,\"tuned_gflops\":%.2f,\"fallback_gflops\":%.2f,"
          "\"untuned_default_gflops\":%.2f,\"onednn_gflops\":%.2f,\"ratio_vs_onednn\":%.3f,"
          "\"correct\":%s}\n",
          task.workload_key().c_str(), o.target.c_str(), threads, tuned.record ? "true" : "false",
          gf / tuned_s, gf / fallback_s, gf / plain_s, vendor_s > 0 ? gf / vendor_s : 0.0,
          vendor_s > 0 ? vendor_s / tuned_s : 0.0, correct ? "true" : "false");
    } else {
      std::printf("%s, target '%s', %d thread%s\n", task.workload_key().c_str(), o.target.c_str(),
                  threads, threads == 1 ? "" : "s");
      std::printf("  tuned     %8.2f GFLOP/s  %s\n", gf / tuned_s,
                  tuned.record ? tuned.config.ToString().c_str() : "(no record: fallback)");
      std::printf("  fallback  %8.2f GFLOP/s\n", gf / fallback_s);
      std::printf("  untuned   %8.2f GFLOP/s  (plain compute, default schedule)%s%s\n",
                  gf / plain_s, correct ? "" : "  WRONG: ", mismatch.c_str());
      if (vendor_s > 0) {
        std::printf("  onednn    %8.2f GFLOP/s  (primitive time, oneDNN's blocked layouts)\n",
                    gf / vendor_s);
        std::printf("  ratio     %8.3f  (tuned / oneDNN)\n", vendor_s / tuned_s);
      }
    }
  }
  return correct;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = ParseOptions(argc, argv);
  std::unique_ptr<tuner::TuningLog> log;
  try {
    log = tuner::TuningLog::Open(o.db, /*create=*/false);
  } catch (const std::exception& e) {
    Usage(e.what());
  }
  bool all_correct = true;
  for (const std::string& key : o.tasks) {
    std::unique_ptr<tuner::Task> task;
    try {
      task = std::make_unique<tuner::Task>(key, o.target);
    } catch (const std::exception& e) {
      Usage(e.what());
    }
    if (task->templ().name != "dense.x86") {
      all_correct &= RunWithoutVendor(*task, *log, o);
      continue;
    }
    const auto& ints = task->args().ints;
    const int m = static_cast<int>(ints[0]), n = static_cast<int>(ints[1]),
              k = static_cast<int>(ints[2]);
    auto array = [](int rows, int cols) {
      return runtime::NDArray::Empty({rows, cols}, DLDataType{kDLFloat, 32, 1},
                                     DLDevice{kDLCPU, 0});
    };
    runtime::NDArray a = array(m, k), w = array(n, k), c = array(m, n), ref = array(m, n);
    for (int i = 0; i < m * k; ++i) a.Data<float>()[i] = static_cast<float>((i * 7 % 13) - 6) / 8;
    for (int i = 0; i < n * k; ++i) w.Data<float>()[i] = static_cast<float>((i * 5 % 11) - 5) / 8;

    tuner::ChosenConfig tuned = tuner::ChooseConfig(*task, log.get(), std::cerr);
    runtime::Module tuned_module, fallback_module;
    runtime::PackedFunc tuned_fn = Compile(*task, tuned.config, &tuned_module);
    runtime::PackedFunc fallback_fn =
        Compile(*task, task->config_space().Fallback(), &fallback_module);
    const double flops = 2.0 * m * n * k;
    for (int threads : o.threads) {
      runtime::SetNumThreads(threads);
      openblas_set_num_threads(threads);
      double tuned_s = BestSeconds(o.repeat, [&] { tuned_fn(a, w, c); });
      double openblas_s = BestSeconds(o.repeat, [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, a.Data<float>(), k,
                    w.Data<float>(), k, 0.0f, ref.Data<float>(), n);
      });
      double max_error = 0;
      for (int i = 0; i < m * n; ++i) {
        max_error =
            std::max(max_error, std::fabs(double(c.Data<float>()[i]) - ref.Data<float>()[i]));
      }
      double fallback_s = BestSeconds(o.repeat, [&] { fallback_fn(a, w, c); });
      bool correct = max_error <= 1e-3 * k;
      all_correct &= correct;
      double tuned_gf = flops / tuned_s / 1e9, blas_gf = flops / openblas_s / 1e9,
             fallback_gf = flops / fallback_s / 1e9;
      if (o.json) {
        std::printf(
            "{\"benchmark\":\"tuned_ops\",\"task\":\"%s\",\"target\":\"%s\",\"threads\":%d,"
            "\"tuned_from_log\":%s,\"tuned_gflops\":%.2f,\"fallback_gflops\":%.2f,"
            "\"openblas_gflops\":%.2f,\"ratio_vs_openblas\":%.3f,\"correct\":%s}\n",
            task->workload_key().c_str(), o.target.c_str(), threads,
            tuned.record ? "true" : "false", tuned_gf, fallback_gf, blas_gf, tuned_gf / blas_gf,
            correct ? "true" : "false");
      } else {
        std::printf("%s, target '%s', %d thread%s\n", task->workload_key().c_str(),
                    o.target.c_str(), threads, threads == 1 ? "" : "s");
        std::printf("  tuned     %8.2f GFLOP/s  %s\n", tuned_gf,
                    tuned.record ? tuned.config.ToString().c_str() : "(no record: fallback)");
        std::printf("  fallback  %8.2f GFLOP/s\n", fallback_gf);
        std::printf("  openblas  %8.2f GFLOP/s\n", blas_gf);
        std::printf("  ratio     %8.3f  (tuned / OpenBLAS; max abs error %.3g%s)\n",
                    tuned_gf / blas_gf, max_error, correct ? "" : ", WRONG");
      }
    }
  }
  return all_correct ? 0 : 1;
}
