#include "report/html.h"

#include "report/chart_js.h"

namespace tessera {
namespace report {
namespace {

// Inside <script>, "</" could end the element early; JSON and the library never need it raw.
std::string ScriptSafe(std::string text) {
  for (size_t at = text.find("</"); at != std::string::npos; at = text.find("</", at + 3)) {
    text.replace(at, 2, "<\\/");
  }
  return text;
}

// Read back what each chart drew: pixel positions through the scales, as the reader sees them.
constexpr const char* kDrawnScript = R"js(
function reportDrawn(chart, id) {
  const drawn = chart.data.datasets.map((dataset, i) => {
    const meta = chart.getDatasetMeta(i);
    const xs = chart.scales[meta.xAxisID], ys = chart.scales[meta.yAxisID];
    return {label: dataset.label, hidden: !chart.isDatasetVisible(i),
            points: meta.data.map(e => [xs.getValueForPixel(e.x), ys.getValueForPixel(e.y)])};
  });
  let pre = document.getElementById("drawn-" + id);
  if (!pre) {
    pre = document.createElement("pre");
    pre.id = "drawn-" + id;
    pre.hidden = true;
    document.body.appendChild(pre);
  }
  pre.textContent = JSON.stringify(drawn);
}
Chart.defaults.animation = false;
Chart.defaults.font.family = "system-ui, sans-serif";
)js";

constexpr const char* kBaseStyle = R"css(
  body { font-family: system-ui, sans-serif; margin: 1.5em; color: #1d2329; background: #fff; }
  h1 { font-size: 1.4em; margin: 0 0 0.3em 0; }
  h2 { font-size: 1.1em; margin: 1.4em 0 0.4em 0; }
  p.note { color: #5b6670; font-size: 0.9em; }
  table { border-collapse: collapse; }
  th, td { text-align: left; padding: 0.25em 0.7em; border-bottom: 1px solid #e1e4e8;
           font-size: 0.85em; }
  th { background: #eef1f4; }
  td.num { text-align: right; font-variant-numeric: tabular-nums; }
  .chart { position: relative; width: 100%; max-width: 1100px; }
)css";

}  // namespace

std::string EscapeHtml(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string ChartScriptElements() {
  return "<script>" + ScriptSafe(kChartJs) + "</script>\n<script>" + kDrawnScript + "</script>\n";
}

std::string ChartPage(const std::string& title, const std::string& style, const std::string& body,
                      const Json& data, const std::string& script) {
  std::string page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  page += "<title>" + EscapeHtml(title) + "</title>\n<style>" + kBaseStyle + style + "</style>\n";
  page += ChartScriptElements() + "</head>\n<body>\n" + body + "\n";
  page += "<script>\n\"use strict\";\nconst DATA = " +
          ScriptSafe(data.dump(-1, ' ', false, Json::error_handler_t::replace)) + ";\n" + script +
          "\n</script>\n</body>\n</html>\n";
  return page;
}

}  // namespace report
}  // namespace tessera
