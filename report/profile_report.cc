#include "report/profile_report.h"

#include <algorithm>
#include <map>

#include "report/html.h"

namespace tessera {
namespace report {
namespace {

constexpr const char* kStyle = R"css(
  .bar-legend { font-size: 0.85em; color: #5b6670; }
)css";

constexpr const char* kBody = R"html(
<h1 id="title"></h1>
<p class="note" id="summary"></p>
<table id="models"></table>
<h2>Time per kernel call</h2>
<div class="chart" id="bars-box"><canvas id="bars"></canvas></div>
<h2>Every kernel call</h2>
<table id="kernels"></table>
)html";

// Draws the bars (the slowest calls, then the rest as one), then fills the tables.
constexpr const char* kScript = R"js(
const COLORS = ["#2f81f7", "#e8590c"];
const fixed = (v, d) => v === null || v === undefined ? "–" : v.toFixed(d);
const esc = s => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
document.getElementById("title").textContent = DATA.models.length === 1
  ? "Profile of " + DATA.models[0].label
  : DATA.models[0].label + " against " + DATA.models[1].label;
document.getElementById("summary").textContent = DATA.rows.length + " kernel calls; mean time " +
  "per run of each call, measured one call at a time" +
  (DATA.models.length > 1 ? "; calls matched by graph node" : "");
document.getElementById("models").innerHTML =
  "<tr><th>build</th><th>target</th><th>threads</th><th>latency</th><th>sum of calls</th></tr>" +
  DATA.models.map((m, i) => '<tr><td style="color:' + COLORS[i] + '">' + esc(m.label) +
    "</td><td>" + esc(m.target) + '</td><td class="num">' + m.threads + '</td><td class="num">' +
    fixed(m.mean_ms, 3) + ' ms</td><td class="num">' + fixed(m.kernels_ms, 3) + " ms</td></tr>")
    .join("");
const shown = DATA.rows.slice(0, DATA.bars);
const rest = DATA.rows.slice(DATA.bars);
const labels = shown.map(r => r.name);
if (rest.length) labels.push(rest.length + " other kernel calls");
const datasets = DATA.models.map((m, i) => {
  const values = shown.map(r => r.ms[i]);
  if (rest.length) values.push(rest.reduce((sum, r) => sum + (r.ms[i] || 0), 0));
  return {label: m.label, data: values, backgroundColor: COLORS[i]};
});
document.getElementById("bars-box").style.height = (labels.length * 22 * DATA.models.length + 80) + "px";
const chart = new Chart(document.getElementById("bars"), {
  type: "bar", data: {labels: labels, datasets: datasets},
  options: {indexAxis: "y", maintainAspectRatio: false,
            scales: {x: {title: {display: true, text: "ms per run"}},
                     y: {ticks: {autoSkip: false, font: {size: 10}}}},
            plugins: {legend: {display: DATA.models.length > 1}}}});
reportDrawn(chart, "bars");
const head = "<tr><th>node</th><th>kernel</th><th>template workload</th>" +
  DATA.models.map(m => '<th>ms (' + esc(m.label) + ')</th><th>GFLOP/s</th><th>config</th>')
    .join("") + "</tr>";
document.getElementById("kernels").innerHTML = head + DATA.rows.map(r =>
  "<tr><td>" + esc(r.name) + "</td><td>" + esc(r.kernel) + "</td><td>" + esc(r.workload) +
  "</td>" + DATA.models.map((m, i) =>
    '<td class="num">' + fixed(r.ms[i], 4) + '</td><td class="num">' + fixed(r.gflops[i], 1) +
    '</td><td class="source">' + esc(r.source[i] || "") + "</td>").join("") + "</tr>").join("");
)js";

struct Row {
  const runtime::NodeProfile* first = nullptr;  // the first model's call with the name
  std::vector<const runtime::NodeProfile*> calls;
};

// What matches a call across builds: its node, whether it is the node's template kernel (the
// template may differ, a Winograd build against a direct one), then how many such calls came
// before it in this build.
std::string CallKey(const runtime::NodeProfile& p, std::map<std::string, int>* seen) {
  const std::string key = p.name + (p.workload.empty() ? "\n" : "\ntemplate");
  const int n = (*seen)[key]++;
  return n == 0 ? key : key + "\n" + std::to_string(n);
}

Json OrNull(const runtime::NodeProfile* p, bool gflops) {
  if (p == nullptr) return nullptr;
  if (!gflops) return p->mean_ms;
  if (p->flops <= 0 || p->mean_ms <= 0) return nullptr;
  return p->flops / (p->mean_ms * 1e6);
}

}  // namespace

Json ProfileData(const std::vector<ProfiledModel>& models) {
  Json data{{"models", Json::array()}, {"rows", Json::array()}, {"bars", kProfileBars}};
  std::map<std::string, size_t> by_call;
  std::vector<Row> rows;
  for (size_t m = 0; m < models.size(); ++m) {
    std::map<std::string, int> seen;
    double total = 0;
    for (const runtime::NodeProfile& p : models[m].kernels) {
      total += p.mean_ms;
      auto [it, added] = by_call.emplace(CallKey(p, &seen), rows.size());
      if (added) rows.push_back({&p, std::vector<const runtime::NodeProfile*>(models.size())});
      rows[it->second].calls[m] = &p;
    }
    data["models"].push_back({{"label", models[m].label},
                              {"target", models[m].target},
                              {"threads", models[m].threads},
                              {"mean_ms", models[m].mean_ms},
                              {"kernels_ms", total}});
  }
  // Slowest first by the first model that has the call (its rows before the others').
  auto key = [](const Row& r) {
    for (size_t m = 0; m < r.calls.size(); ++m) {
      if (r.calls[m]) return std::make_pair(m, -r.calls[m]->mean_ms);
    }
    return std::make_pair(r.calls.size(), 0.0);
  };
  std::stable_sort(rows.begin(), rows.end(),
                   [&](const Row& a, const Row& b) { return key(a) < key(b); });
  for (const Row& r : rows) {
    Json row{{"name", r.first->name},         {"kernel", r.first->function},
             {"workload", r.first->workload}, {"ms", Json::array()},
             {"gflops", Json::array()},       {"source", Json::array()}};
    for (const runtime::NodeProfile* p : r.calls) {
      row["ms"].push_back(OrNull(p, false));
      row["gflops"].push_back(OrNull(p, true));
      row["source"].push_back(p ? Json(p->source) : Json(nullptr));
    }
    data["rows"].push_back(std::move(row));
  }
  return data;
}

std::string ProfileReportHtml(const std::vector<ProfiledModel>& models) {
  const std::string title = models.size() == 1 ? "Profile of " + models[0].label
                                               : models[0].label + " against " + models[1].label;
  return ChartPage(title, kStyle, kBody, ProfileData(models), kScript);
}

}  // namespace report
}  // namespace tessera
