/// \file
/// The build step that local and RPC measurement share: a batch of candidates compiled into
/// shared libraries in parallel worker processes, each within a time limit, and the outcome of
/// a candidate that did not build.
#ifndef TESSERA_TUNER_MEASURE_BUILD_BATCH_H_
#define TESSERA_TUNER_MEASURE_BUILD_BATCH_H_

#include <cstdint>
#include <string>
#include <vector>

#include "tuner/measure/isolated_call.h"
#include "tuner/measure/local_measurer.h"

namespace tessera {
namespace tuner {

/// The libraries of one batch: `paths[i]` holds candidate i when `results[i]` is ok.
struct BuiltBatch {
  std::vector<std::string> paths;
  std::vector<IsolatedResult> results;
};

/// Builds each candidate of `batch` with `build` into `WORK_DIR/PREFIX_PID_N.so` (N counts up
/// from `*counter`), `options.build_parallel` at once, each within `options.build_timeout_s`.
BuiltBatch BuildBatch(const BuildFn& build, const std::vector<space::ConfigEntity>& batch,
                      const LocalMeasureOptions& options, const std::string& prefix,
                      int64_t* counter);

/// The outcome of a candidate whose build failed or timed out (COMPILE_ERROR, with its reason
/// and build time); removes its library file.
MeasureOutcome BuildFailure(const IsolatedResult& built, const std::string& path);

/// `$TMPDIR`, or /tmp: where libraries go when no work directory is set.
std::string DefaultWorkDir();

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_MEASURE_BUILD_BATCH_H_
