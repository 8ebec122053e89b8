// Private to records/: which records of an import are already in a log. Both stores count a
// record as present when one with the same device, config, time and costs exists within its
// workload and target.
#ifndef TESSERA_RECORDS_IMPORT_DEDUP_H_
#define TESSERA_RECORDS_IMPORT_DEDUP_H_

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "proto/tuning.pb.h"

namespace tessera {
namespace records {

/// A record's identity within its workload and target: device, config index, time, costs text.
using RecordIdentity = std::tuple<std::string, int64_t, double, std::string>;

/// Remembers the identities of the (workload, target) groups an import touches, reading each
/// group once through `load` rather than scanning the log per record.
class ImportDedup {
 public:
  /// Reads the identities already stored for one workload and target.
  using Load = std::function<std::vector<RecordIdentity>(const std::string& workload_key,
                                                         const std::string& target)>;
  /// Deduplicates against what `load` reads.
  explicit ImportDedup(Load load) : load_(std::move(load)) {}
  /// True when `record` is neither stored nor seen earlier in this import; it then counts as
  /// seen.
  bool IsNew(const tuning::MeasureRecord& record);

 private:
  Load load_;
  std::map<std::pair<std::string, std::string>, std::set<RecordIdentity>> present_;
};

}  // namespace records
}  // namespace tessera

#endif  // TESSERA_RECORDS_IMPORT_DEDUP_H_
