/// \file
/// Local measurement: a builder that compiles a batch of candidates in parallel worker processes
/// with a time limit, and a runner that times each built candidate in its own worker process with
/// a time limit, checking its result. Every failure becomes an outcome with an error kind.
#ifndef TESSERA_TUNER_MEASURE_LOCAL_MEASURER_H_
#define TESSERA_TUNER_MEASURE_LOCAL_MEASURER_H_

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/space/config_space.h"
#include "tuner/search/tuner.h"

namespace tessera {
namespace tuner {

/// Thrown by a run function when the candidate's result differs from the reference.
class WrongAnswerError : public std::runtime_error {
 public:
  /// An error saying how the result differs.
  explicit WrongAnswerError(const std::string& msg) : std::runtime_error(msg) {}
};

/// Compiles `config` into a shared library at `library_path`. Runs in a worker process; any
/// exception or crash is a compile error.
using BuildFn =
    std::function<void(const space::ConfigEntity& config, const std::string& library_path)>;

/// Loads the library built for `config`, checks its result when `check` is set (throwing
/// `WrongAnswerError` on a mismatch) and returns the seconds per call of each timed repeat. Runs
/// in a worker process; other exceptions and crashes are runtime errors.
using RunFn = std::function<std::vector<double>(const space::ConfigEntity& config,
                                                const std::string& library_path, bool check)>;

/// Limits and parallelism of local measurement.
struct LocalMeasureOptions {
  int build_parallel = 2;       ///< worker processes compiling at once
  double build_timeout_s = 30;  ///< per candidate
  double run_timeout_s = 10;    ///< per candidate, timing included
  bool check_correctness = true;
  std::string work_dir;  ///< where libraries are written; empty: $TMPDIR or /tmp
};

/// Builds in parallel, then runs one candidate at a time (timings are not disturbed by builds).
class LocalMeasurer {
 public:
  /// A measurer using these functions; throws `UserError` on bad options.
  LocalMeasurer(BuildFn build, RunFn run, LocalMeasureOptions options = {});

  /// Measures `batch`; one outcome per candidate, in order. Usable as a `MeasureBatchFn`.
  std::vector<MeasureOutcome> Measure(const std::vector<space::ConfigEntity>& batch);

 private:
  BuildFn build_;
  RunFn run_;
  LocalMeasureOptions options_;
  int64_t counter_ = 0;
};

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_MEASURE_LOCAL_MEASURER_H_
