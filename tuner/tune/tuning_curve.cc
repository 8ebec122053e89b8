#include "tuner/tune/tuning_curve.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "common/error.h"
#include "records/tuning_log.h"

namespace tessera {
namespace tuner {
namespace {

constexpr const char* kCsvHeader = "seconds,trials,estimated_ms,measured_tasks";

}  // namespace

std::vector<CurvePoint> TuningCurveFromLog(const std::vector<ModelTask>& tasks,
                                           const std::string& target,
                                           const records::RecordSource& log) {
  struct Timed {
    double timestamp;
    size_t task;
    double cost;
    int64_t config;
  };
  std::vector<Timed> records;
  for (size_t t = 0; t < tasks.size(); ++t) {
    records::RecordFilter filter;
    filter.workload_key = tasks[t].workload_key;
    filter.target = target;
    for (const tuning::MeasureRecord& r : log.List(filter)) {
      if (r.in_model()) continue;  // the end-of-tuning check's, not the search's
      records.push_back({r.timestamp(), t, records::MeanCost(r), r.config_index()});
    }
  }
  std::stable_sort(records.begin(), records.end(),
                   [](const Timed& a, const Timed& b) { return a.timestamp < b.timestamp; });
  const std::vector<ScheduledTask> scheduled = ScheduledTasksOf(tasks, target);
  std::vector<double> best(tasks.size(), std::numeric_limits<double>::infinity());
  std::vector<int64_t> best_config(tasks.size(), -1);
  std::vector<CurvePoint> curve;
  for (const Timed& r : records) {
    if (r.cost < best[r.task]) {
      best[r.task] = r.cost;
      best_config[r.task] = r.config;
    }
    CurvePoint p;
    p.timestamp = r.timestamp;
    p.seconds = r.timestamp - records.front().timestamp;
    p.trials = static_cast<int64_t>(curve.size()) + 1;
    p.estimated = EstimatedModelLatency(scheduled, best, best_config);
    for (size_t t = 0; t < tasks.size(); ++t) p.measured_tasks += std::isfinite(best[t]) ? 1 : 0;
    curve.push_back(p);
  }
  return curve;
}

int FirstWithin(const std::vector<CurvePoint>& curve, int task_count, double tolerance) {
  if (curve.empty() || curve.back().measured_tasks < task_count) return -1;
  const double final_estimate = curve.back().estimated;
  for (size_t i = 0; i < curve.size(); ++i) {
    if (curve[i].measured_tasks >= task_count &&
        curve[i].estimated <= final_estimate * (1 + tolerance)) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

CurveWriter::CurveWriter(std::string path) : path_(std::move(path)) {
  std::ifstream in(path_);
  std::string line, last;
  bool header = false;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (!header) {
      if (line != kCsvHeader) {
        throw UserError(path_ + ": not a tuning curve (its first line is not '" + kCsvHeader +
                        "'); give another --curve file");
      }
      header = true;
      continue;
    }
    last = line;
  }
  if (!last.empty()) {
    char* end = nullptr;
    offset_s_ = std::strtod(last.c_str(), &end);
    if (end == last.c_str() || *end != ',') {
      throw UserError(path_ + ": bad last row '" + last + "' (expected " + kCsvHeader + ")");
    }
  }
  std::ofstream out(path_, std::ios::app);
  if (!out) throw UserError(path_ + ": cannot write the tuning curve");
  if (!header) out << kCsvHeader << "\n";
}

void CurveWriter::Add(const CurvePoint& point) {
  std::ofstream out(path_, std::ios::app);
  char row[128];
  std::snprintf(row, sizeof(row), "%.3f,%lld,%.6g,%d\n", offset_s_ + point.seconds,
                static_cast<long long>(point.trials), point.estimated * 1e3, point.measured_tasks);
  out << row;
  out.flush();
  if (!out) throw UserError(path_ + ": cannot write the tuning curve");
}

}  // namespace tuner
}  // namespace tessera
