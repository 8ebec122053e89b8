/// \file
/// Chart.js 3, as Debian packages it (libjs-chart.js), compiled in: the dashboard serves it and
/// the reports inline it, so that charts draw with no network and no file beside the page.
#ifndef TESSERA_REPORT_CHART_JS_H_
#define TESSERA_REPORT_CHART_JS_H_

namespace tessera {
namespace report {

/// The minified Chart.js bundle (a UMD script defining `Chart`).
extern const char kChartJs[];

}  // namespace report
}  // namespace tessera

#endif  // TESSERA_REPORT_CHART_JS_H_
