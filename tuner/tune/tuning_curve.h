/// \file
/// A model's tuning-time curve: the estimated end-to-end latency of its tunable part (Σ weight ×
/// best over the tasks measured) against tuning time and trials. Read back from the tuning log's
/// record timestamps, so any finished or interrupted run can be plotted again, and written live
/// by `tessera tune model.onnx --curve FILE`.
#ifndef TESSERA_TUNER_TUNE_TUNING_CURVE_H_
#define TESSERA_TUNER_TUNE_TUNING_CURVE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "records/record_source.h"
#include "tuner/tune/tune_model.h"

namespace tessera {
namespace tuner {

/// One point of a tuning-time curve.
struct CurvePoint {
  double seconds = 0;      ///< tuning time since the curve's start
  double timestamp = 0;    ///< of the last record counted (seconds since the Unix epoch)
  int64_t trials = 0;      ///< records of the model's tasks so far
  double estimated = 0;    ///< Σ weight × best over the tasks measured (seconds)
  int measured_tasks = 0;  ///< tasks with a successful record
};

/// The curve of `tasks` on exactly `target` as `log` holds it: one point per record of those
/// tasks, in timestamp order, the time counted from the first of them.
std::vector<CurvePoint> TuningCurveFromLog(const std::vector<ModelTask>& tasks,
                                           const std::string& target,
                                           const records::RecordSource& log);

/// Index of the first point that has every one of `task_count` tasks measured and an estimate
/// within `tolerance` (0.05: 5%) of the last point's; -1 when there is none.
int FirstWithin(const std::vector<CurvePoint>& curve, int task_count, double tolerance);

/// Appends a tuning run's curve to a CSV file (`seconds,trials,estimated_ms,measured_tasks`).
/// A file that already has rows is continued: its last time is added to this run's, so a
/// resumed run extends the curve of the interrupted one.
class CurveWriter {
 public:
  /// Opens (or creates) `path`; throws `UserError` naming it when it cannot be read or written,
  /// or holds something other than such a curve.
  explicit CurveWriter(std::string path);
  /// Appends `point` (its `seconds` counted from this run's start).
  void Add(const CurvePoint& point);

 private:
  std::string path_;
  double offset_s_ = 0;
};

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_TUNE_TUNING_CURVE_H_
