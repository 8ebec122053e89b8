/// \file
/// Tuning curves: for each (workload, target) of a tuning log, the best latency found so far
/// against the trials measured and the time since the first, as steps at each improvement
/// (`tessera log curve`). Records measured in a model (`MeasureRecord::in_model`) are not trials
/// and are left out. The page form draws them with Chart.js (`report/html.h`); the SVG form is
/// `report/curve_svg.h`.
#ifndef TESSERA_REPORT_TUNING_CURVE_H_
#define TESSERA_REPORT_TUNING_CURVE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/json.h"
#include "proto/tuning.pb.h"

namespace tessera {
namespace report {

/// A new best: at trial `trial` (1-based, failures counted), `elapsed_s` after the first trial.
struct CurvePoint {
  int64_t trial = 0;
  double elapsed_s = 0;
  double best_s = 0;  ///< mean seconds of the new best record
};

/// One task's curve.
struct TaskCurve {
  std::string workload_key;
  std::string target;
  int64_t trials = 0;                    ///< records measured (failures included)
  int64_t failures = 0;                  ///< of which failed
  double span_s = 0;                     ///< time from the first trial to the last
  std::vector<CurvePoint> improvements;  ///< empty when every trial failed
};

/// The curves of `records` (in the order they were measured), one per (workload, target), in
/// the order each first appears.
std::vector<TaskCurve> TuningCurves(const std::vector<tuning::MeasureRecord>& records);

/// `[{workload_key, target, trials, failures, span_s, improvements: [[trial, elapsed_s,
/// best_ms]]}]`.
Json CurvesJson(const std::vector<TaskCurve>& curves);

/// A page with two charts of `curves` (best ms against trials, and against time; log scale),
/// headed by `title`.
std::string CurveHtml(const std::vector<TaskCurve>& curves, const std::string& title);

}  // namespace report
}  // namespace tessera

#endif  // TESSERA_REPORT_TUNING_CURVE_H_
