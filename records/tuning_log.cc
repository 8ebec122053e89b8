#include "records/tuning_log.h"

#include <google/protobuf/util/json_util.h>

#include <limits>
#include <utility>

#include "common/postgres.h"
#include "records/log_error.h"
#include "records/postgres_log.h"
#include "records/sqlite_log.h"

namespace tessera {
namespace records {

std::string TemplateOfWorkload(const std::string& workload_key) {
  return workload_key.substr(0, workload_key.find('('));
}

int TemplateVersionOf(const tuning::MeasureRecord& record) {
  return record.template_version() == 0 ? 1 : record.template_version();
}

double MeanCost(const tuning::MeasureRecord& record) {
  if (record.error_kind() != tuning::OK || record.costs_size() == 0) {
    return std::numeric_limits<double>::infinity();
  }
  double sum = 0;
  for (double c : record.costs()) sum += c;
  return sum / record.costs_size();
}

std::string RecordToJson(const tuning::MeasureRecord& record) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string line;
  auto status = google::protobuf::util::MessageToJsonString(record, &line, options);
  if (!status.ok()) throw LogError("cannot print a record as JSON: " + status.ToString());
  return line;
}

std::unique_ptr<TuningLog> TuningLog::Open(const std::string& location, bool create) {
  if (IsPostgresUri(location)) return OpenPostgresLog(location, create);
  return OpenSqliteLog(location, create);
}

void TuningLog::Append(const tuning::MeasureRecord& record) { AppendBatch({record}); }

int64_t TuningLog::ExportJsonLines(std::ostream& out, const RecordFilter& filter) const {
  int64_t n = 0;
  if (filter.limit >= 0) {  // the newest `limit`: few enough to hold
    for (const auto& r : List(filter)) {
      out << RecordToJson(r) << '\n';
      ++n;
    }
    return n;
  }
  Scan(filter, 10000, [&](std::vector<tuning::MeasureRecord>&& batch) {
    for (const auto& r : batch) out << RecordToJson(r) << '\n';
    n += static_cast<int64_t>(batch.size());
  });
  return n;
}

ImportResult TuningLog::ImportJsonLines(std::istream& in, const std::string& source) {
  std::vector<tuning::MeasureRecord> records;
  std::string line;
  int64_t line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    tuning::MeasureRecord r;
    auto status = google::protobuf::util::JsonStringToMessage(line, &r);
    if (!status.ok()) {
      throw LogError(source + ":" + std::to_string(line_number) + ": not a tuning record: " +
                     std::string(status.message()) + " (nothing was imported)");
    }
    if (r.workload_key().empty() || r.target().empty()) {
      throw LogError(source + ":" + std::to_string(line_number) +
                     ": a tuning record needs workload_key and target (nothing was imported)");
    }
    records.push_back(std::move(r));
  }
  return ImportRecords(records);
}

void TuningLog::Scan(const RecordFilter& filter, int64_t batch,
                     const std::function<void(std::vector<tuning::MeasureRecord>&&)>& each) const {
  int64_t after = std::numeric_limits<int64_t>::min();
  for (;;) {
    std::vector<tuning::MeasureRecord> records = RecordsAfter(filter, after, batch, &after);
    if (records.empty()) return;
    each(std::move(records));
  }
}

ImportResult CopyRecords(const TuningLog& from, TuningLog& to, int64_t batch,
                         const std::function<void(const ImportResult&)>& progress) {
  ImportResult total;
  from.Scan({}, batch, [&](std::vector<tuning::MeasureRecord>&& records) {
    const ImportResult part = to.ImportRecords(records);
    total.imported += part.imported;
    total.duplicates += part.duplicates;
    if (progress) progress(total);
  });
  return total;
}

}  // namespace records
}  // namespace tessera
