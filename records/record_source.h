/// \file
/// Where a build reads tuning records from: a local SQLite log (`TuningLog`) or the tracker's
/// shared log (`fleet::LogClient`, `tessera compile --db tracker://HOST:PORT`). Builds only
/// read, so they see this interface and not where the records live.
#ifndef TESSERA_RECORDS_RECORD_SOURCE_H_
#define TESSERA_RECORDS_RECORD_SOURCE_H_

#include <string>
#include <vector>

#include "proto/tuning.pb.h"
#include "records/record_filter.h"

namespace tessera {
namespace records {

/// A read-only view of tuning records.
class RecordSource {
 public:
  virtual ~RecordSource() = default;
  /// Records matching `filter`, in insertion order.
  virtual std::vector<tuning::MeasureRecord> List(const RecordFilter& filter) const = 0;
  /// Names the source in messages: a file path, or "tracker://HOST:PORT".
  virtual std::string SourceName() const = 0;
};

}  // namespace records
}  // namespace tessera

#endif  // TESSERA_RECORDS_RECORD_SOURCE_H_
