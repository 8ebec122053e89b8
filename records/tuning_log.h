/// \file
/// The tuning log: every measurement of every tuning run, kept in SQLite (WAL mode, schema
/// versioned with migrations). Builds read the best record per (workload, target); the tuner
/// reads history by template for transfer learning and skips configurations already measured.
/// Several processes may append at once without losing rows.
#ifndef TESSERA_RECORDS_TUNING_LOG_H_
#define TESSERA_RECORDS_TUNING_LOG_H_

#include <cstdint>
#include <istream>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "proto/tuning.pb.h"
#include "records/record_filter.h"
#include "records/record_source.h"

namespace tessera {

class Database;

namespace records {

/// Schema version this build writes; older logs are migrated on open, newer ones refused.
constexpr int kTuningLogSchemaVersion = 4;

/// The template name of a workload key: "dense.x86(1024,...)" → "dense.x86".
std::string TemplateOfWorkload(const std::string& workload_key);

/// The template version `record` was measured with: its `template_version`, or 1 for a record
/// written before versions (field absent), as templates start at version 1.
int TemplateVersionOf(const tuning::MeasureRecord& record);

/// Mean of a successful record's costs (seconds); +infinity for failed records.
double MeanCost(const tuning::MeasureRecord& record);

/// `record` as one line of JSON (protobuf's JSON mapping, field names as in the .proto, every
/// field printed): the format of `tessera log export` and `--json`.
std::string RecordToJson(const tuning::MeasureRecord& record);

/// Per-(workload, target) summary.
struct WorkloadStats {
  std::string workload_key;
  std::string target;
  int64_t records = 0;
  int64_t failures = 0;
  double best_cost = 0;  ///< seconds; +infinity when every record failed
};

/// Outcome of a JSON-lines import.
struct ImportResult {
  int64_t imported = 0;
  int64_t duplicates = 0;  ///< identical records already present, skipped
};

/// An open tuning log. Not copyable; thread-compatible (one instance per thread).
class TuningLog : public RecordSource {
 public:
  /// Opens the log at `path`, creating it unless `create` is false. Throws `LogError` when the
  /// file is missing (and not created), corrupt, not a tuning log, or of a newer schema.
  static std::unique_ptr<TuningLog> Open(const std::string& path, bool create = true);
  ~TuningLog() override;

  /// Appends one measurement.
  void Append(const tuning::MeasureRecord& record);
  /// Appends measurements in one transaction (all or none).
  void AppendBatch(const std::vector<tuning::MeasureRecord>& records);

  /// The successful record with the lowest mean cost for exactly this workload and target.
  std::optional<tuning::MeasureRecord> Best(const std::string& workload_key,
                                            const std::string& target) const;
  /// Records matching `filter`, in insertion order.
  std::vector<tuning::MeasureRecord> List(const RecordFilter& filter) const override;
  /// The database file's path.
  std::string SourceName() const override { return path(); }
  /// Config indices already measured as tasks (successfully or not; records measured in a
  /// model, `MeasureRecord::in_model`, do not count) for this workload and target.
  std::set<int64_t> MeasuredConfigs(const std::string& workload_key,
                                    const std::string& target) const;
  /// One summary per (workload, target), sorted by workload then target.
  std::vector<WorkloadStats> Stats(const RecordFilter& filter = {}) const;
  /// Total number of records.
  int64_t Count() const;

  /// Writes the records matching `filter` as JSON lines (one record per line).
  int64_t ExportJsonLines(std::ostream& out, const RecordFilter& filter = {}) const;
  /// Reads JSON lines written by `ExportJsonLines` (or by another Tessera) in one transaction.
  /// Throws `LogError` naming `source` and the line number on a malformed line, importing nothing.
  ImportResult ImportJsonLines(std::istream& in, const std::string& source);
  /// Appends the records not already present (same workload, target, device, config, time and
  /// costs) in one transaction, and counts both kinds.
  ImportResult ImportRecords(const std::vector<tuning::MeasureRecord>& records);

  /// Path of the database file.
  const std::string& path() const;

 private:
  explicit TuningLog(std::unique_ptr<Database> db);
  void Insert(const tuning::MeasureRecord& record);
  std::unique_ptr<Database> db_;
};

}  // namespace records
}  // namespace tessera

#endif  // TESSERA_RECORDS_TUNING_LOG_H_
