/// \file
/// The check that ends `tessera tune model.onnx`: the model built with the log's records against
/// the same model built without any, both run on this machine, so that a tuned build slower
/// than the untuned one, a kernel slower in the model than its record promised, or an estimate
/// far from the measured time is said where it happens instead of found later.
#ifndef TESSERA_TUNER_TUNE_TUNE_CHECK_H_
#define TESSERA_TUNER_TUNE_TUNE_CHECK_H_

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "proto/tuning.pb.h"
#include "records/record_source.h"
#include "records/tuning_log.h"

namespace tessera {
namespace tuner {

/// What `CheckTunedModel` builds and runs.
struct TuneCheckOptions {
  std::string model;                      ///< the .onnx file
  std::vector<std::string> input_shapes;  ///< "NAME:1x3x224x224", as for `tessera tune`
  int64_t batch = 0;                      ///< the batch bucket to build (0: the model as imported)
  std::string batch_dim;  ///< the symbolic dimension that is the batch (empty: the first)
  std::string target;     ///< the target tuned for
  const records::RecordSource* log = nullptr;  ///< the tuning log (not owned)
  double estimated_s = 0;                      ///< the tuner's estimate of the tunable part
  /// The workloads whose kernels the estimate counts (`TuneModelResult::estimated_workloads`);
  /// empty: every template kernel.
  std::vector<std::string> estimated_workloads;
  int repeat = 10;  ///< timed runs of each build (and profiled runs)
};

/// One template kernel of the model, timed in both builds.
struct KernelCheck {
  std::string node;          ///< the graph node the kernel computes
  std::string workload_key;  ///< its template workload
  double tuned_ms = 0;       ///< its time in the tuned build (fused epilogue included)
  double untuned_ms = 0;     ///< its time in the untuned build (0: not found there)
  double record_ms = 0;      ///< the record it runs (0: fallback, or a record adapted)
  /// Its share of the time per run of the kernels around it that are no template's (layout
  /// changes, slices, concatenations, shuffles reading what it writes, whose speed its blocks
  /// decide), in the tuned build; keeping compares kernel plus surroundings.
  double tuned_around_ms = 0;
  double untuned_around_ms = 0;      ///< as `tuned_around_ms`, in the untuned build
  std::string tuned_config;          ///< its config in the tuned build (`ConfigEntity::ToString`)
  std::string untuned_workload_key;  ///< the untuned build's workload for the node (Winograd
                                     ///< and direct convolutions differ)
  std::string untuned_config;        ///< its config in the untuned build
};

/// A choice the check kept: two records measured in the model (`MeasureRecord::in_model`, one
/// cost per kernel, its share of the kernels around it included), of the tuned build's config
/// and of the untuned build's (the untuned workload's, which may be another template).
struct KeptChoice {
  tuning::MeasureRecord tuned;    ///< the tuned config, as the model ran it
  tuning::MeasureRecord untuned;  ///< the untuned config, as the model ran it
};

/// The two builds compared.
struct TuneCheck {
  int threads = 1;          ///< threads both builds ran with
  double tuned_ms = 0;      ///< median latency of the tuned build
  double untuned_ms = 0;    ///< median latency of the untuned build
  double template_ms = 0;   ///< the tuned build's template kernels, per run
  double estimated_ms = 0;  ///< the tuner's estimate of them
  /// The template kernels of the workloads the estimate counts, per run (`template_ms` when it
  /// counts every one): what the estimate is set against.
  double estimated_part_ms = 0;
  int unestimated_kernels = 0;       ///< template kernels of workloads the estimate leaves out
  std::vector<KernelCheck> kernels;  ///< every template kernel of the tuned build
  /// For every workload whose kernels ran slower tuned than untuned by more than
  /// `kUntunedTolerance`, over every round: its tuned and its untuned config as records measured
  /// in the model, added to the log so that builds take the faster. Empty when none was.
  std::vector<KeptChoice> kept;
  /// Median latency of the tuned build once `kept` is in the log (0: nothing was kept).
  double kept_ms = 0;
  /// Rounds of keeping: builds made after the first with the records kept so far.
  int keep_rounds = 0;
  /// At most this many rounds of keeping.
  static constexpr int kKeepRounds = 3;
  /// Kernels slower in the model than their record by more than this factor are named.
  static constexpr double kRecordTolerance = 1.5;
  /// The estimate is called off when it misses the measured time by more than this share.
  static constexpr double kEstimateTolerance = 0.2;
  /// A kernel, or the whole build, slower tuned than untuned by more than this factor is named.
  static constexpr double kUntunedTolerance = 1.1;
};

/// Adds records to the tuning log the check reads.
using KeepRecords = std::function<void(const std::vector<tuning::MeasureRecord>&)>;

/// Builds `options.model` with and without the log's records, runs both (`repeat` timed and
/// `repeat` profiled runs each, at the target's thread count) and matches their template
/// kernels. With `keep`, the records of the choices to keep go to it (`TuneCheck::kept`) and
/// the tuned build is made and run again, up to `kKeepRounds` times, until a round keeps
/// nothing. Throws `UserError` as `tessera compile` and `tessera run` would.
TuneCheck CheckTunedModel(const TuneCheckOptions& options, const KeepRecords& keep = nullptr);

/// The builds the end-of-tuning check of a model tuned for `batches` (its batch buckets) runs:
/// `model` at each bucket (`batch` set; no estimate: the tuner's sums every bucket, so it is
/// none of theirs), or `model` alone when `batches` is empty.
std::vector<TuneCheckOptions> BuildsToCheck(const TuneCheckOptions& model,
                                            const std::vector<int64_t>& batches);

/// The check that ends tuning on this machine (`tessera tune`, `tessera.tune`): `CheckTunedModel`
/// over `log`, keeping into it; `options.log` is set to `log`.
TuneCheck CheckAndKeep(TuneCheckOptions options, records::TuningLog* log);

/// The check's report, one "check: ..." line each: the two latencies, the estimate against the
/// measured template kernels, then every kernel slower than its record by more than
/// `kRecordTolerance` and every kernel slower tuned than untuned by more than
/// `kUntunedTolerance`, the configs kept for the next build, and a warning when the whole tuned
/// build is.
void PrintTuneCheck(const TuneCheck& check, std::ostream& out);

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_TUNE_TUNE_CHECK_H_
