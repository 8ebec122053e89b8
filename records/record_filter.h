/// \file
/// `RecordFilter`: which records a query of a tuning log returns, locally or through the tracker.
#ifndef TESSERA_RECORDS_RECORD_FILTER_H_
#define TESSERA_RECORDS_RECORD_FILTER_H_

#include <cstdint>
#include <string>

namespace tessera {
namespace records {

/// Which records a query returns. Empty strings match everything.
struct RecordFilter {
  std::string workload_key;   ///< exact workload key
  std::string template_name;  ///< template of the workload ("dense.x86")
  std::string target;         ///< exact target string
  bool only_successful = false;
  int64_t limit = -1;  ///< at most this many rows (newest first when limited); -1: all
};

}  // namespace records
}  // namespace tessera

#endif  // TESSERA_RECORDS_RECORD_FILTER_H_
