/// \file
/// A tuning curve as a standalone SVG (`tessera log curve -o curve.svg`): best latency (ms, log
/// scale) against trials or seconds, one stepped line per task with a dot at each new best and a
/// legend. The plot area carries its scales as `data-` attributes (pixel range and value range of
/// each axis), so that what was drawn can be read back from the points.
#ifndef TESSERA_REPORT_CURVE_SVG_H_
#define TESSERA_REPORT_CURVE_SVG_H_

#include <string>
#include <vector>

#include "report/tuning_curve.h"

namespace tessera {
namespace report {

/// What the horizontal axis counts.
enum class CurveAxis { kTrials, kSeconds };

/// Most tasks drawn in one SVG (the rest are named in a note under the legend).
constexpr size_t kSvgMaxTasks = 12;

/// The SVG document of `curves`, headed by `title`.
std::string CurveSvg(const std::vector<TaskCurve>& curves, const std::string& title,
                     CurveAxis axis);

}  // namespace report
}  // namespace tessera

#endif  // TESSERA_REPORT_CURVE_SVG_H_
