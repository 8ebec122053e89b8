/// \file
/// `tessera run M --profile --report R.html [--compare B.tsr]`: a model's time per kernel call as
/// horizontal bars (one colour per build when two are compared, such as untuned against tuned),
/// then every kernel call in a table with its template workload, where its config came from and
/// its GFLOP/s. One self-contained HTML file (`report/html.h`).
#ifndef TESSERA_REPORT_PROFILE_REPORT_H_
#define TESSERA_REPORT_PROFILE_REPORT_H_

#include <string>
#include <vector>

#include "common/json.h"
#include "runtime/graph_executor.h"

namespace tessera {
namespace report {

/// One profiled build of a model.
struct ProfiledModel {
  std::string label;                          ///< what the reader knows it by (the artifact's path)
  std::string target;                         ///< the target it was compiled for
  int threads = 1;                            ///< threads it ran with
  double mean_ms = 0;                         ///< mean latency of a whole run
  std::vector<runtime::NodeProfile> kernels;  ///< its kernel calls (any order)
};

/// Most kernel calls drawn as bars; the rest are one bar, "N other kernel calls".
constexpr size_t kProfileBars = 30;

/// The report's data: `{"models": [{label, target, threads, mean_ms, kernels_ms}], "rows":
/// [{name, kernel, workload, ms: [per model, null where absent], gflops: [...], source: [...]}]}`,
/// rows matched across models by node name (a node's template kernel with its template kernel,
/// whichever template each build chose), slowest (in the first model) first.
Json ProfileData(const std::vector<ProfiledModel>& models);

/// The report page for one model, or two compared (the first is the baseline).
std::string ProfileReportHtml(const std::vector<ProfiledModel>& models);

}  // namespace report
}  // namespace tessera

#endif  // TESSERA_REPORT_PROFILE_REPORT_H_
