#include "report/tuning_curve.h"

#include <cmath>
#include <map>
#include <utility>

#include "records/tuning_log.h"
#include "report/html.h"

namespace tessera {
namespace report {
namespace {

constexpr const char* kBody = R"html(
<h1 id="title"></h1>
<p class="note" id="summary"></p>
<h2>Best latency against trials</h2>
<div class="chart" style="height: 420px"><canvas id="trials"></canvas></div>
<h2>Best latency against time</h2>
<div class="chart" style="height: 420px"><canvas id="time"></canvas></div>
<h2>Tasks</h2>
<table id="tasks"></table>
)html";

// One stepped line per task; the last step is carried to the task's last trial.
constexpr const char* kScript = R"js(
const COLORS = ["#2f81f7", "#e8590c", "#1a7f37", "#8250df", "#bf3989", "#9a6700", "#0a7ea4",
                "#cf222e", "#57606a", "#116329"];
const esc = s => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
document.getElementById("title").textContent = DATA.title;
document.getElementById("summary").textContent = DATA.curves.length + " tasks, " +
  DATA.curves.reduce((n, c) => n + c.trials, 0) + " trials; a point at each new best";
function draw(id, axis, title) {
  const datasets = DATA.curves.filter(c => c.improvements.length).map((c, i) => {
    const points = c.improvements.map(p => ({x: p[axis], y: p[2]}));
    const end = axis === 0 ? c.trials : c.span_s, last = points[points.length - 1];
    if (end > last.x) points.push({x: end, y: last.y});
    return {label: c.workload_key, data: points, stepped: "before", borderColor:
            COLORS[i % COLORS.length], backgroundColor: COLORS[i % COLORS.length], pointRadius: 3,
            borderWidth: 2};
  });
  const chart = new Chart(document.getElementById(id), {
    type: "line", data: {datasets: datasets},
    options: {maintainAspectRatio: false, parsing: true,
              scales: {x: {type: "linear", title: {display: true, text: title}},
                       y: {type: "logarithmic", title: {display: true, text: "best ms"}}},
              plugins: {legend: {position: "bottom", labels: {boxWidth: 12, font: {size: 10}}}}}});
  reportDrawn(chart, id);
}
draw("trials", 0, "trials");
draw("time", 1, "seconds since the first trial");
document.getElementById("tasks").innerHTML =
  "<tr><th>workload</th><th>target</th><th>trials</th><th>failed</th><th>best</th>" +
  "<th>first</th><th>time</th></tr>" + DATA.curves.map(c => {
    const last = c.improvements[c.improvements.length - 1], first = c.improvements[0];
    return "<tr><td>" + esc(c.workload_key) + "</td><td>" + esc(c.target) + '</td><td class="num">' +
      c.trials + '</td><td class="num">' + c.failures + '</td><td class="num">' +
      (last ? last[2].toFixed(4) + " ms" : "–") + '</td><td class="num">' +
      (first ? first[2].toFixed(4) + " ms" : "–") + '</td><td class="num">' +
      c.span_s.toFixed(1) + " s</td></tr>";
  }).join("");
)js";

}  // namespace

std::vector<TaskCurve> TuningCurves(const std::vector<tuning::MeasureRecord>& records) {
  std::vector<TaskCurve> curves;
  std::map<std::pair<std::string, std::string>, size_t> index;
  std::vector<double> first_time;
  for (const tuning::MeasureRecord& r : records) {
    if (r.in_model()) continue;
    auto [it, added] = index.emplace(std::make_pair(r.workload_key(), r.target()), curves.size());
    if (added) {
      curves.push_back({r.workload_key(), r.target()});
      first_time.push_back(r.timestamp());
    }
    TaskCurve& c = curves[it->second];
    const double elapsed = r.timestamp() - first_time[it->second];
    ++c.trials;
    c.span_s = std::max(c.span_s, elapsed);
    const double cost = records::MeanCost(r);
    if (r.error_kind() != tuning::OK || !std::isfinite(cost)) {
      ++c.failures;
      continue;
    }
    if (c.improvements.empty() || cost < c.improvements.back().best_s) {
      c.improvements.push_back({c.trials, elapsed, cost});
    }
  }
  return curves;
}

Json CurvesJson(const std::vector<TaskCurve>& curves) {
  Json out = Json::array();
  for (const TaskCurve& c : curves) {
    Json points = Json::array();
    for (const CurvePoint& p : c.improvements) {
      points.push_back({p.trial, p.elapsed_s, p.best_s * 1e3});
    }
    out.push_back({{"workload_key", c.workload_key},
                   {"target", c.target},
                   {"trials", c.trials},
                   {"failures", c.failures},
                   {"span_s", c.span_s},
                   {"improvements", std::move(points)}});
  }
  return out;
}

std::string CurveHtml(const std::vector<TaskCurve>& curves, const std::string& title) {
  return ChartPage(title, "", kBody, Json{{"title", title}, {"curves", CurvesJson(curves)}},
                   kScript);
}

}  // namespace report
}  // namespace tessera
