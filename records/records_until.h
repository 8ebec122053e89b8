/// \file
/// A tuning log as it stood at an earlier moment: the records of another source whose timestamp
/// is not after a given time. What a build would have used had tuning stopped then (the
/// tuning-time curve of `//bench:tuning_curve`).
#ifndef TESSERA_RECORDS_RECORDS_UNTIL_H_
#define TESSERA_RECORDS_RECORDS_UNTIL_H_

#include <string>
#include <vector>

#include "records/record_source.h"

namespace tessera {
namespace records {

/// The records of `source` with timestamp ≤ `until` (seconds since the Unix epoch).
class RecordsUntil : public RecordSource {
 public:
  /// A view of `source` (not owned; it must outlive this view).
  RecordsUntil(const RecordSource& source, double until) : source_(source), until_(until) {}

  /// Records matching `filter` and measured no later than `until`, in insertion order (with a
  /// limit: the newest `filter.limit` of them, as the source's own query).
  std::vector<tuning::MeasureRecord> List(const RecordFilter& filter) const override;
  /// The source's name with the time, e.g. "tuning.db (as of 1795444900.0)".
  std::string SourceName() const override;

 private:
  const RecordSource& source_;
  double until_;
};

}  // namespace records
}  // namespace tessera

#endif  // TESSERA_RECORDS_RECORDS_UNTIL_H_
