/// \file
/// The tuning log: every measurement of every tuning run. Builds read the best record per
/// (workload, target); the tuner reads history by template for transfer learning and skips
/// configurations already measured. Several processes may append at once without losing rows.
///
/// Two stores, one schema (versioned, migrated in `records/schema.cc`): a SQLite file (the
/// default, WAL mode, for one machine) and a PostgreSQL database (`postgresql://user@host/db`,
/// for a lab or a company: many writers and readers, replicated by the server). `TuningLog::Open`
/// picks the store from the location.
#ifndef TESSERA_RECORDS_TUNING_LOG_H_
#define TESSERA_RECORDS_TUNING_LOG_H_

#include <cstdint>
#include <functional>
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

namespace records {

/// Schema version this build writes; older logs are migrated on open, newer ones refused.
constexpr int kTuningLogSchemaVersion = 5;

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

/// An open tuning log, in either store. Not copyable; thread-compatible (one instance per thread).
class TuningLog : public RecordSource {
 public:
  /// Opens the log at `location`, creating it unless `create` is false: a SQLite file path, or a
  /// PostgreSQL URI (`postgresql://` or `postgres://`; the database must exist, the log's tables
  /// are created in it). Throws `LogError` when the log is missing (and not created), corrupt, not
  /// a tuning log, of a newer schema, the server cannot be reached, or the URI holds a password.
  static std::unique_ptr<TuningLog> Open(const std::string& location, bool create = true);
  ~TuningLog() override = default;
  TuningLog(const TuningLog&) = delete;
  TuningLog& operator=(const TuningLog&) = delete;

  /// Appends one measurement.
  void Append(const tuning::MeasureRecord& record);
  /// Appends measurements in one transaction (all or none).
  virtual void AppendBatch(const std::vector<tuning::MeasureRecord>& records) = 0;

  /// The successful record with the lowest mean cost for exactly this workload and target.
  virtual std::optional<tuning::MeasureRecord> Best(const std::string& workload_key,
                                                    const std::string& target) const = 0;
  /// Hands every record matching `filter` (its limit ignored) to `each`, in insertion order, a
  /// batch of at most `batch` records at a time, so that a large log never sits in memory whole.
  void Scan(const RecordFilter& filter, int64_t batch,
            const std::function<void(std::vector<tuning::MeasureRecord>&&)>& each) const;
  /// The log's location.
  std::string SourceName() const override { return path(); }
  /// Config indices already measured as tasks (successfully or not; records measured in a
  /// model, `MeasureRecord::in_model`, do not count) for this workload and target.
  virtual std::set<int64_t> MeasuredConfigs(const std::string& workload_key,
                                            const std::string& target) const = 0;
  /// One summary per (workload, target), sorted by workload then target.
  virtual std::vector<WorkloadStats> Stats(const RecordFilter& filter = {}) const = 0;
  /// Total number of records.
  virtual int64_t Count() const = 0;

  /// Writes the records matching `filter` as JSON lines (one record per line).
  int64_t ExportJsonLines(std::ostream& out, const RecordFilter& filter = {}) const;
  /// Reads JSON lines written by `ExportJsonLines` (or by another Tessera) in one transaction.
  /// Throws `LogError` naming `source` and the line number on a malformed line, importing nothing.
  ImportResult ImportJsonLines(std::istream& in, const std::string& source);
  /// Appends the records not already present (same workload, target, device, config, time and
  /// costs) in one transaction, and counts both kinds. Imports into one log run one at a time.
  virtual ImportResult ImportRecords(const std::vector<tuning::MeasureRecord>& records) = 0;

  /// Where the log lives: the SQLite file's path or the PostgreSQL URI.
  virtual const std::string& path() const = 0;

 protected:
  /// For the stores.
  TuningLog() = default;
  /// At most `batch` records matching `filter` (its limit ignored) stored after the one with row
  /// id `after_id`, in insertion order; `*last_id` is set to the row id of the last one returned.
  virtual std::vector<tuning::MeasureRecord> RecordsAfter(const RecordFilter& filter,
                                                          int64_t after_id, int64_t batch,
                                                          int64_t* last_id) const = 0;
};

/// Copies every record of `from` into `to` that `to` does not hold yet (`ImportRecords`), in
/// batches of `batch` records so that a large log never sits in memory whole; records that `from`
/// gains meanwhile may or may not be copied. After each batch, `progress` (when given) gets the
/// totals so far. Returns the totals.
ImportResult CopyRecords(const TuningLog& from, TuningLog& to, int64_t batch = 10000,
                         const std::function<void(const ImportResult&)>& progress = nullptr);

}  // namespace records
}  // namespace tessera

#endif  // TESSERA_RECORDS_TUNING_LOG_H_
