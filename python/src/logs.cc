// `Log`: a tuning log read from Python, a local SQLite file, a PostgreSQL database or a tracker's
// shared log
// ("tracker://HOST:PORT"), as `tessera log` reads it. Records cross as the JSON objects
// `tessera log export` writes, so that Python sees the same fields under the same names.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "fleet/client/log_client.h"
#include "python/src/bindings.h"
#include "records/tuning_log.h"
#include "report/tuning_curve.h"

namespace py = pybind11;

namespace tessera {
namespace python {
namespace {

class Log {
 public:
  Log(const std::string& db, const std::string& token_file, const std::string& tls_ca) {
    if (const std::string tracker = fleet::TrackerLogAddress(db); !tracker.empty()) {
      tracker_ =
          std::make_unique<fleet::LogClient>(fleet::TrackerOptionsFor(tracker, token_file, tls_ca));
    } else {
      if (!token_file.empty() || !tls_ca.empty()) {
        throw UserError("token_file and tls_ca go with a tracker's log (tracker://HOST:PORT)");
      }
      file_ = records::TuningLog::Open(db, /*create=*/false);
    }
  }

  // The best successful record per (workload, target) matching the filter, as JSON lines.
  std::vector<std::string> Best(const records::RecordFilter& filter) const {
    std::vector<tuning::MeasureRecord> best;
    {
      py::gil_scoped_release release;
      if (tracker_) {
        best = tracker_->Best(filter).records;
      } else {
        for (const records::WorkloadStats& s : file_->Stats(filter)) {
          if (auto record = file_->Best(s.workload_key, s.target)) best.push_back(*record);
        }
      }
    }
    return Json(best);
  }

  std::vector<std::string> Records(const records::RecordFilter& filter) const {
    std::vector<tuning::MeasureRecord> records;
    {
      py::gil_scoped_release release;
      records = source().List(filter);
    }
    return Json(records);
  }

  // (workload, target, records, failures, best seconds or None) per (workload, target).
  py::list Stats(const records::RecordFilter& filter) const {
    std::vector<records::WorkloadStats> stats;
    {
      py::gil_scoped_release release;
      stats = tracker_ ? tracker_->Stats(filter) : file_->Stats(filter);
    }
    py::list out;
    for (const records::WorkloadStats& s : stats) {
      py::object best =
          std::isfinite(s.best_cost) ? py::object(py::float_(s.best_cost)) : py::none();
      out.append(py::make_tuple(s.workload_key, s.target, s.records, s.failures, best));
    }
    return out;
  }

  // The tuning curves of the matching records (`report::CurvesJson`), as JSON text.
  std::string Curves(const records::RecordFilter& filter) const {
    std::vector<tuning::MeasureRecord> records;
    {
      py::gil_scoped_release release;
      records = source().List(filter);
    }
    return report::CurvesJson(report::TuningCurves(records)).dump();
  }

  std::string Name() const { return source().SourceName(); }

 private:
  const records::RecordSource& source() const {
    if (tracker_) return *tracker_;
    return *file_;
  }

  static std::vector<std::string> Json(const std::vector<tuning::MeasureRecord>& records) {
    std::vector<std::string> lines;
    for (const tuning::MeasureRecord& r : records) lines.push_back(records::RecordToJson(r));
    return lines;
  }

  std::unique_ptr<records::TuningLog> file_;
  std::unique_ptr<fleet::LogClient> tracker_;
};

records::RecordFilter Filter(const std::string& task, const std::string& target, int64_t limit) {
  records::RecordFilter filter;
  filter.workload_key = task;
  filter.target = target;
  filter.limit = limit;
  return filter;
}

}  // namespace

void BindLogs(py::module_& m) {
  py::class_<Log>(m, "Log")
      .def(py::init<const std::string&, const std::string&, const std::string&>(), py::arg("db"),
           py::arg("token_file"), py::arg("tls_ca"))
      .def(
          "best",
          [](const Log& log, const std::string& task, const std::string& target) {
            return log.Best(Filter(task, target, -1));
          },
          py::arg("task"), py::arg("target"))
      .def(
          "records",
          [](const Log& log, const std::string& task, const std::string& target, int64_t limit) {
            return log.Records(Filter(task, target, limit));
          },
          py::arg("task"), py::arg("target"), py::arg("limit"))
      .def(
          "stats",
          [](const Log& log, const std::string& task, const std::string& target) {
            return log.Stats(Filter(task, target, -1));
          },
          py::arg("task"), py::arg("target"))
      .def(
          "curves",
          [](const Log& log, const std::string& task, const std::string& target) {
            return log.Curves(Filter(task, target, -1));
          },
          py::arg("task"), py::arg("target"))
      .def_property_readonly("name", &Log::Name);
  // `tessera log copy`: every record of one local log into another, either store.
  m.def(
      "copy_log",
      [](const std::string& from, const std::string& to) {
        records::ImportResult copied;
        {
          py::gil_scoped_release release;
          const auto source = records::TuningLog::Open(from, /*create=*/false);
          const auto destination = records::TuningLog::Open(to, /*create=*/true);
          copied = records::CopyRecords(*source, *destination);
        }
        return py::make_tuple(copied.imported, copied.duplicates);
      },
      py::arg("source"), py::arg("destination"));
}

}  // namespace python
}  // namespace tessera
