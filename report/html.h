/// \file
/// The pieces every report page shares: escaping, and a self-contained HTML page that carries
/// Chart.js, its data as JSON and the script that draws it, so that it opens in a browser with
/// nothing else. Each chart's script calls `reportDrawn(chart, id)` (defined on every page) once
/// drawn: it reads the drawn elements' pixel positions back through the chart's scales into a
/// hidden `<pre id="drawn-ID">` as JSON, which is what the tests check the drawing by.
#ifndef TESSERA_REPORT_HTML_H_
#define TESSERA_REPORT_HTML_H_

#include <string>

#include "common/json.h"

namespace tessera {
namespace report {

/// `text` with the characters HTML gives meaning to replaced by entities.
std::string EscapeHtml(const std::string& text);

/// The `<script>` elements that define `Chart` (Chart.js) and `reportDrawn(chart, id)`, with
/// animations off, for any page that draws charts (the reports below, the tracker's dashboard).
std::string ChartScriptElements();

/// A whole page: `title`, the page's own `style` rules and `body` (HTML), then Chart.js, `data`
/// as the script constant `DATA`, and `script` (JavaScript that draws from `DATA`; it must not
/// hold "</script").
std::string ChartPage(const std::string& title, const std::string& style, const std::string& body,
                      const Json& data, const std::string& script);

}  // namespace report
}  // namespace tessera

#endif  // TESSERA_REPORT_HTML_H_
