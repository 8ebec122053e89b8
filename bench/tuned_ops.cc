// Tuned operators against vendor libraries in the same process: for each dense task, the best
// configuration in the tuning log (and the untuned fallback) on weights packed once against
// OpenBLAS cblas_sgemm, at each thread count, with the packing timed apart; conv2d_NCHWc.x86 tasks
// (the blocked kernel on pre-packed tensors) against oneDNN (primitive time on its blocked layouts)
// and PyTorch (at::conv2d on NCHW tensors), with the cost of Tessera's own layout transforms; every
// other task against its fallback and plain default schedule.
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

#include "bench/exact_check.h"
#include "bench/onednn_conv.h"
#include "bench/stats.h"
#include "bench/torch_conv.h"
#include "common/command_line.h"
#include "common/json.h"
#include "compiler/driver/build.h"
#include "compiler/lower/lower.h"
#include "compiler/topi/conv2d_nchwc_x86.h"
#include "compiler/topi/dense_x86.h"
#include "compiler/topi/nchwc_layout.h"
#include "records/tuning_log.h"
#include "runtime/ndarray.h"
#include "runtime/thread_pool.h"
#include "runtime/time_evaluator.h"
#include "tuner/measure/task_measure.h"
#include "tuner/tune/apply_history.h"

extern "C" void openblas_set_num_threads(int num_threads);

namespace {

using namespace tessera;

// The dense inputs below: multiples of 1/8 of magnitude at most 6/8, so products are multiples
// of 1/64.
constexpr double kInputBound = 6.0 / 8;
constexpr double kQuantum = 1.0 / 64;

struct Options {
  std::string db;
  std::vector<std::string> tasks = {"dense.x86(1024,1024,1024,float32)"};
  std::string target = "llvm -mcpu=native";
  std::vector<int> threads = {1, 2};
  int repeat = 10;
  bool json = false;
  bool cold_weights = false;  // weights evicted before every timed call of the conv2d path
};

using bench::BestSeconds;

// Builds `op` for `target`; `keep` holds the module for as long as its function is used.
runtime::PackedFunc CompileOp(const topi::ScheduledOp& op, const std::string& target,
                              runtime::Module* keep) {
  *keep = build(op.schedule, op.args, Target(target), "op");
  return (*keep)["op"];
}

runtime::PackedFunc Compile(const task::Task& task, const space::ConfigEntity& config,
                            runtime::Module* keep) {
  return CompileOp(task.Instantiate(config), task.target(), keep);
}

// Arrays bound as the packed arguments of one call.
struct BoundArgs {
  std::vector<runtime::NDArray> arrays;
  std::vector<TesseraValue> values;
  std::vector<int32_t> codes;

  // float32 arrays of `shapes`, the first `inputs.size()` filled.
  BoundArgs(const std::vector<std::vector<int64_t>>& shapes,
            const std::vector<std::vector<float>>& inputs) {
    for (size_t i = 0; i < shapes.size(); ++i) {
      arrays.push_back(
          runtime::NDArray::Empty(shapes[i], DLDataType{kDLFloat, 32, 1}, DLDevice{kDLCPU, 0}));
      if (i < inputs.size()) {
        arrays.back().CopyFromBytes(inputs[i].data(), inputs[i].size() * sizeof(float));
      }
    }
    Bind();
  }
  // A candidate's arrays, in their element types.
  explicit BoundArgs(const tuner::CandidateArgs& candidate)
      : arrays(tuner::CandidateArrays(candidate, DLDevice{kDLCPU, 0})) {
    Bind();
  }
  void Bind() {
    values.resize(arrays.size());
    codes.resize(arrays.size());
    for (size_t i = 0; i < arrays.size(); ++i) {
      runtime::PackedFunc::SetArg(&values[i], &codes[i], arrays[i]);
    }
  }
  void Call(const runtime::PackedFunc& f) {
    runtime::PackedArgs args(values.data(), codes.data(), static_cast<int>(values.size()));
    runtime::RetValue ret;
    f.CallPacked(args, &ret);
  }
  const void* output() const { return arrays.back()->data; }
};

std::vector<float> Contents(const runtime::NDArray& a) {
  int64_t count = 1;
  for (int64_t d : a.Shape()) count *= d;
  return std::vector<float>(a.Data<float>(), a.Data<float>() + count);
}

// The layout transforms a graph runs around a blocked conv2d, compiled by Tessera: data
// NCHW → NCHW[ic_bn]c and output NCHW[oc_bn]c → NCHW where the layout changes, weights once.
struct Conv2dTransforms {
  double pack_data_s = 0, unpack_output_s = 0, pack_weights_s = 0;
  std::string mismatch;  // "" when they produce what the measurer's host-side packing does
};

Conv2dTransforms TimeConv2dTransforms(const task::Task& task, const space::ConfigEntity& config,
                                      const tuner::TaskFixture& fixture,
                                      const tuner::CandidateArgs& candidate,
                                      const std::vector<float>& candidate_output, int repeat) {
  const auto& a = task.args().ints;  // (N,C,H,W,K,R,S,stride,pad)
  const topi::Conv2dShape shape{a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]};
  const topi::Conv2dBlocks b = topi::Conv2dNCHWcBlocks(config);
  auto compile = [&](const topi::ScheduledOp& op, runtime::Module* keep) {
    return CompileOp(op, task.target(), keep);
  };
  runtime::Module m_data, m_weights, m_out;
  runtime::PackedFunc pack_data =
      compile(topi::PackNCHWc(shape.n, shape.c, shape.h, shape.w, b.ic_bn), &m_data);
  runtime::PackedFunc pack_weights =
      compile(topi::PackOIHWio(shape.k, shape.c, shape.r, shape.s, b.ic_bn, b.oc_bn), &m_weights);
  runtime::PackedFunc unpack =
      compile(topi::UnpackNCHWc(shape.n, shape.k, shape.oh(), shape.ow(), b.oc_bn), &m_out);
  BoundArgs data_args({fixture.shapes[0], candidate.shapes[0]}, {fixture.inputs[0]});
  BoundArgs weight_args({fixture.shapes[1], candidate.shapes[1]}, {fixture.inputs[1]});
  BoundArgs out_args({candidate.shapes[2], fixture.shapes[2]}, {candidate_output});
  Conv2dTransforms t;
  t.pack_data_s = BestSeconds(repeat, [&] { data_args.Call(pack_data); });
  t.pack_weights_s = BestSeconds(repeat, [&] { weight_args.Call(pack_weights); });
  t.unpack_output_s = BestSeconds(repeat, [&] { out_args.Call(unpack); });
  if (Contents(data_args.arrays[1]) != candidate.inputs[0].ToFloats()) {
    t.mismatch = "compiled data packing differs from the measurer's";
  } else if (Contents(weight_args.arrays[1]) != candidate.inputs[1].ToFloats()) {
    t.mismatch = "compiled weight packing differs from the measurer's";
  } else {
    t.mismatch = tuner::CompareOutput(fixture, out_args.arrays.back().Data<float>(), 1e-3, 1e-3);
  }
  return t;
}

// Operators other than dense: the log's best config against the fallback, the plain untuned
// compute, and for conv2d oneDNN, plus the cost of Tessera's own layout transforms.
bool RunWithoutVendor(const task::Task& task, const records::TuningLog& log, const Options& o) {
  auto fixture = tuner::MakeTaskFixture(task, 1);
  ChosenConfig tuned = tuner::ChooseConfig(task, &log, std::cerr);
  const space::ConfigEntity fallback = task.config_space().Fallback();
  tuner::CandidateArgs tuned_args = tuner::PrepareCandidateArgs(task, *fixture, tuned.config);
  tuner::CandidateArgs fallback_args = tuner::PrepareCandidateArgs(task, *fixture, fallback);
  BoundArgs tuned_bound(tuned_args);
  BoundArgs fallback_bound(fallback_args);
  BoundArgs plain_bound(fixture->shapes, fixture->inputs);
  runtime::Module tuned_module, fallback_module;
  runtime::PackedFunc tuned_fn = Compile(task, tuned.config, &tuned_module);
  runtime::PackedFunc fallback_fn = Compile(task, fallback, &fallback_module);
  const topi::ScheduledOp plain = task.templ().baseline(task.args());
  runtime::Module plain_module;
  runtime::PackedFunc plain_fn = CompileOp(plain, task.target(), &plain_module);

  tuned_bound.Call(tuned_fn);
  std::vector<float> tuned_out = tuned_args.output_as_reference(tuned_bound.output());
  std::string mismatch = tuner::CompareOutput(*fixture, tuned_out.data(), 1e-3, 1e-3);
  fallback_bound.Call(fallback_fn);
  std::vector<float> fallback_out = fallback_args.output_as_reference(fallback_bound.output());
  if (mismatch.empty()) {
    mismatch = tuner::CompareOutput(*fixture, fallback_out.data(), 1e-3, 1e-3);
    if (!mismatch.empty()) mismatch = "fallback: " + mismatch;
  }
  const bool conv = task.templ().name == "conv2d_NCHWc.x86";
  const auto& a = task.args().ints;
  const bench::Conv2dShape conv_shape =
      conv ? bench::Conv2dShape{a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]}
           : bench::Conv2dShape{};
  Conv2dTransforms transforms;
  if (conv) {
    transforms = TimeConv2dTransforms(task, tuned.config, *fixture, tuned_args,
                                      Contents(tuned_bound.arrays.back()), o.repeat);
    if (mismatch.empty() && !transforms.mismatch.empty()) {
      mismatch = "layout transforms: " + transforms.mismatch;
    }
  }
  const bool correct = mismatch.empty();
  const double gf = plain.flops / 1e9;
  // With --cold-weights, each call reads its weights from memory, as a model's kernel does.
  auto evict_weights = [&](BoundArgs& bound) {
    return [&] {
      if (!o.cold_weights) return;
      for (int i : task.templ().weight_args) {
        const runtime::NDArray& w = bound.arrays[static_cast<size_t>(i)];
        runtime::EvictFromCaches(w.Data<float>(), runtime::DataBytes(*w.get()));
      }
    };
  };
  for (int threads : o.threads) {
    runtime::SetNumThreads(threads);
    double tuned_s = bench::BestSecondsAfter(o.repeat, evict_weights(tuned_bound),
                                             [&] { tuned_bound.Call(tuned_fn); });
    double fallback_s = bench::BestSecondsAfter(o.repeat, evict_weights(fallback_bound),
                                                [&] { fallback_bound.Call(fallback_fn); });
    double plain_s = BestSeconds(std::min(o.repeat, 3), [&] { plain_bound.Call(plain_fn); });
    double onednn_s =
        conv ? bench::OneDnnConv2dSeconds(conv_shape, threads, o.repeat, false, o.cold_weights) : 0;
    double torch_s = conv ? bench::TorchConv2dSeconds(conv_shape, threads, o.repeat) : 0;
    if (conv) {
      runtime::SetNumThreads(threads);  // oneDNN's OpenMP setting does not reach our pool
      transforms = TimeConv2dTransforms(task, tuned.config, *fixture, tuned_args,
                                        Contents(tuned_bound.arrays.back()), o.repeat);
    }
    // A graph that stays in NCHW between layers pays the data transforms around every conv2d.
    const double nchw_s = tuned_s + transforms.pack_data_s + transforms.unpack_output_s;
    // What one eager at::conv2d call does, NCHW in and out with its reorders of data and
    // weights: the same work for Tessera is the kernel, both data transforms and the packing.
    const double same_work_s = nchw_s + transforms.pack_weights_s;
    if (o.json) {
      Json line = {{"benchmark", "tuned_ops"},
                   {"task", task.workload_key()},
                   {"target", o.target},
                   {"threads", threads},
                   {"tuned_from_log", tuned.record.has_value()},
                   {"cold_weights", o.cold_weights},
                   {"tuned_gflops", Round(gf / tuned_s, 2)},
                   {"fallback_gflops", Round(gf / fallback_s, 2)},
                   {"untuned_default_gflops", Round(gf / plain_s, 2)}};
      if (conv) {
        line["tuned_timed"] = "blocked kernel on NCHW" +
                              std::to_string(topi::Conv2dNCHWcBlocks(tuned.config).ic_bn) +
                              "c data and pre-packed weights";
        line["onednn_timed"] = "primitive on its blocked layouts";
        line["onednn_gflops"] = Round(gf / onednn_s, 2);
        line["ratio_vs_onednn"] = Round(onednn_s / tuned_s, 3);
        line["pytorch_timed"] =
            "at::conv2d on NCHW tensors, eager, against Tessera's kernel with its data "
            "transforms and weight packing on every call";
        line["pytorch_gflops"] = Round(gf / torch_s, 2);
        line["ratio_vs_pytorch"] = Round(torch_s / same_work_s, 3);
        line["pack_data_us"] = Round(transforms.pack_data_s * 1e6, 1);
        line["unpack_output_us"] = Round(transforms.unpack_output_s * 1e6, 1);
        line["pack_weights_us"] = Round(transforms.pack_weights_s * 1e6, 1);
        line["tuned_with_nchw_transforms_gflops"] = Round(gf / nchw_s, 2);
      }
      line["correct"] = correct;
      PrintJsonLine(line, std::cout);
    } else {
      std::printf("%s, target '%s', %d thread%s%s\n", task.workload_key().c_str(), o.target.c_str(),
                  threads, threads == 1 ? "" : "s",
                  o.cold_weights ? ", weights evicted before every call" : "");
      std::printf("  tuned     %8.2f GFLOP/s  %s\n", gf / tuned_s,
                  tuned.record ? tuned.config.ToString().c_str() : "(no record: fallback)");
      std::printf("  fallback  %8.2f GFLOP/s\n", gf / fallback_s);
      std::printf("  untuned   %8.2f GFLOP/s  (plain NCHW compute, default schedule)%s%s\n",
                  gf / plain_s, correct ? "" : "  WRONG: ", mismatch.c_str());
      if (conv) {
        const topi::Conv2dBlocks b = topi::Conv2dNCHWcBlocks(tuned.config);
        std::printf(
            "  timed: tuned/fallback = the blocked kernel alone (data NCHW%lldc, weights "
            "packed once, output NCHW%lldc);\n         oneDNN = its primitive alone on its "
            "own blocked layouts (reorders excluded)\n",
            static_cast<long long>(b.ic_bn), static_cast<long long>(b.oc_bn));
        std::printf("  onednn    %8.2f GFLOP/s  ratio %.3f (tuned / oneDNN)\n", gf / onednn_s,
                    onednn_s / tuned_s);
        std::printf(
            "  pytorch   %8.2f GFLOP/s  ratio %.3f (GFLOP/s, Tessera / PyTorch, the same work: "
            "at::conv2d "
            "on NCHW tensors, eager, %s, against the tuned kernel with both data transforms and "
            "the weight packing on every call, %.2f GFLOP/s)\n",
            gf / torch_s, torch_s / same_work_s, bench::TorchVersion().c_str(), gf / same_work_s);
        std::printf(
            "  layout    data NCHW->NCHWc %.1f us, output NCHWc->NCHW %.1f us per call; "
            "weights %.1f us once\n",
            transforms.pack_data_s * 1e6, transforms.unpack_output_s * 1e6,
            transforms.pack_weights_s * 1e6);
        std::printf("  tuned+    %8.2f GFLOP/s  (with both data transforms, for a graph in NCHW)\n",
                    gf / nchw_s);
      }
    }
  }
  return correct;
}

// Dense against OpenBLAS: Tessera's kernel reads weights packed once (as a graph compiler packs
// its constant weights at build time); the packing is timed apart and reported with and without.
bool RunDense(const task::Task& task, const records::TuningLog& log, const Options& o) {
  const auto& ints = task.args().ints;
  const int m = static_cast<int>(ints[0]), n = static_cast<int>(ints[1]),
            k = static_cast<int>(ints[2]);
  auto array = [](std::vector<int64_t> shape) {
    return runtime::NDArray::Empty(shape, DLDataType{kDLFloat, 32, 1}, DLDevice{kDLCPU, 0});
  };
  runtime::NDArray a = array({m, k}), w = array({n, k}), c = array({m, n}), ref = array({m, n});
  // Multiples of 1/8 in [-6/8, 6/8]: every product and partial sum is exact in float32 (see
  // DotProductTolerance), so any correct kernel gives exactly OpenBLAS's answer.
  for (int i = 0; i < m * k; ++i) a.Data<float>()[i] = static_cast<float>((i * 7 % 13) - 6) / 8;
  for (int i = 0; i < n * k; ++i) w.Data<float>()[i] = static_cast<float>((i * 5 % 11) - 5) / 8;

  ChosenConfig tuned = tuner::ChooseConfig(task, &log, std::cerr);
  const space::ConfigEntity fallback = task.config_space().Fallback();
  runtime::Module tuned_module, fallback_module, tuned_pack_module, fallback_pack_module;
  runtime::PackedFunc tuned_fn = Compile(task, tuned.config, &tuned_module);
  runtime::PackedFunc fallback_fn = Compile(task, fallback, &fallback_module);
  const topi::DenseShape shape{m, n, k};
  auto compile_pack = [&](int64_t bn, runtime::Module* keep) {
    return CompileOp(topi::DensePackWeights(shape, bn), task.target(), keep);
  };
  const int64_t tuned_bn = topi::DenseWeightBlock(tuned.config),
                fallback_bn = topi::DenseWeightBlock(fallback);
  runtime::PackedFunc tuned_pack = compile_pack(tuned_bn, &tuned_pack_module);
  runtime::PackedFunc fallback_pack = compile_pack(fallback_bn, &fallback_pack_module);
  runtime::NDArray tuned_w = array({n / tuned_bn, k, tuned_bn}),
                   fallback_w = array({n / fallback_bn, k, fallback_bn});
  fallback_pack(w, fallback_w);
  const double flops = 2.0 * m * n * k;
  bool all_correct = true;
  for (int threads : o.threads) {
    runtime::SetNumThreads(threads);
    openblas_set_num_threads(threads);
    double pack_s = BestSeconds(o.repeat, [&] { tuned_pack(w, tuned_w); });
    double tuned_s = BestSeconds(o.repeat, [&] { tuned_fn(a, tuned_w, c); });
    double openblas_s = BestSeconds(o.repeat, [&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, a.Data<float>(), k,
                  w.Data<float>(), k, 0.0f, ref.Data<float>(), n);
    });
    const double max_error = bench::MaxAbsDifference(c.Data<float>(), ref.Data<float>(), m * n);
    double fallback_s = BestSeconds(o.repeat, [&] { fallback_fn(a, fallback_w, c); });
    const double fallback_error =
        bench::MaxAbsDifference(c.Data<float>(), ref.Data<float>(), m * n);
    const double tolerance = bench::DotProductTolerance(k, kInputBound * kInputBound, kQuantum);
    bool correct = max_error <= tolerance && fallback_error <= tolerance;
    all_correct &= correct;
    double tuned_gf = flops / tuned_s / 1e9, blas_gf = flops / openblas_s / 1e9,
           fallback_gf = flops / fallback_s / 1e9, packed_gf = flops / (tuned_s + pack_s) / 1e9;
    if (o.json) {
      PrintJsonLine({{"benchmark", "tuned_ops"},
                     {"task", task.workload_key()},
                     {"target", o.target},
                     {"threads", threads},
                     {"tuned_from_log", tuned.record.has_value()},
                     {"tuned_gflops", Round(tuned_gf, 2)},
                     {"fallback_gflops", Round(fallback_gf, 2)},
                     {"openblas_gflops", Round(blas_gf, 2)},
                     {"ratio_vs_openblas", Round(tuned_gf / blas_gf, 3)},
                     {"pack_weights_ms", Round(pack_s * 1e3, 3)},
                     {"tuned_with_packing_gflops", Round(packed_gf, 2)},
                     {"ratio_with_packing", Round(packed_gf / blas_gf, 3)},
                     {"max_abs_error", max_error},
                     {"fallback_max_abs_error", fallback_error},
                     {"allowed_error", tolerance},
                     {"correct", correct}},
                    std::cout);
    } else {
      std::printf("%s, target '%s', %d thread%s\n", task.workload_key().c_str(), o.target.c_str(),
                  threads, threads == 1 ? "" : "s");
      std::printf("  tuned     %8.2f GFLOP/s  %s (weights packed once)\n", tuned_gf,
                  tuned.record ? tuned.config.ToString().c_str() : "(no record: fallback)");
      std::printf("  fallback  %8.2f GFLOP/s\n", fallback_gf);
      std::printf("  openblas  %8.2f GFLOP/s  (cblas_sgemm, packs internally on every call)\n",
                  blas_gf);
      std::printf(
          "  ratio     %8.3f  (tuned / OpenBLAS; max abs error %.3g, fallback %.3g, allowed "
          "%.3g%s)\n",
          tuned_gf / blas_gf, max_error, fallback_error, tolerance, correct ? "" : ", WRONG");
      std::printf(
          "  packing   %8.3f ms once; tuned with packing on every call %.2f GFLOP/s, "
          "ratio %.3f\n",
          pack_s * 1e3, packed_gf, packed_gf / blas_gf);
    }
  }
  return all_correct;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  std::vector<std::string> tasks;
  CLI::App app{"Tuned operators (the log's best records) against OpenBLAS, oneDNN and PyTorch.",
               "tuned_ops"};
  app.option_defaults()->always_capture_default();
  app.add_option("--db", o.db, "tuning log")->required();
  app.add_option("--task", tasks, "workload keys (repeat the flag; default the dense 1024³)");
  app.add_option("--target", o.target, "target string of the records");
  app.add_option("--threads", o.threads, "thread counts, comma separated")
      ->delimiter(',')
      ->check(Positive());
  app.add_option("--repeat", o.repeat, "timed runs of each (best counts)")->check(Positive());
  app.add_flag("--json", o.json, "one JSON object per task and thread count");
  app.add_flag("--cold-weights", o.cold_weights,
               "conv2d and the other non-dense tasks: evict the weights of Tessera's kernels and "
               "of oneDNN's before every timed call, as a model whose weights exceed the caches "
               "reads them");
  return RunCommandLine(app, argc, argv, std::cout, std::cerr, [&] {
    if (!tasks.empty()) o.tasks = tasks;
    auto log = records::TuningLog::Open(o.db, /*create=*/false);
    bool all_correct = true;
    for (const std::string& key : o.tasks) {
      task::Task task(key, o.target);
      all_correct &= task.templ().name == "dense.x86" ? RunDense(task, *log, o)
                                                      : RunWithoutVendor(task, *log, o);
    }
    return all_correct ? 0 : 1;
  });
}
