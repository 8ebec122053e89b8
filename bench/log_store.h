// //bench:fleet --mode log --db LOCATION: the tuning log's store under a company's load.
#ifndef TESSERA_BENCH_LOG_STORE_H_
#define TESSERA_BENCH_LOG_STORE_H_

#include <cstdint>
#include <string>

#include "proto/tuning.pb.h"

namespace tessera {
namespace bench {

/// The target of the synthetic records.
constexpr const char* kSyntheticTarget = "llvm -mcpu=znver4";

/// Workload `w` of the synthetic records: "dense.x86(16·(w+1),256,256,float32)".
std::string SyntheticWorkload(int64_t w);

/// Synthetic record `i` of a log of `workloads` workloads: workload i % workloads, config
/// i / workloads (so every record is distinct), two costs, one knob.
tuning::MeasureRecord SyntheticRecord(int64_t i, int64_t workloads);

/// The load of `StoreLoad`.
struct StoreLoadOptions {
  std::string db;  ///< an empty log: a SQLite file or a postgresql:// URI
  int64_t records = 1000000;
  int writers = 16;               ///< tuning workers appending their measurements
  int readers = 64;               ///< builds asking for the best record of a workload
  int batch = 64;                 ///< records per append (a tuner's round of measurements)
  int workloads = 2000;           ///< distinct (workload, target) pairs written and read
  double read_interval_ms = 5;    ///< each reader's pause between queries
  double quiet_read_seconds = 5;  ///< then the readers alone on the full log, this long
};

/// Writes `records` synthetic records from `writers` threads (each its own connection) while
/// `readers` threads query `best`, then the readers alone for `quiet_read_seconds`; prints writes
/// per second, the read latency percentiles of both phases, and checks that every record arrived
/// exactly once. Throws when the log is not empty.
void StoreLoad(const StoreLoadOptions& options);

}  // namespace bench
}  // namespace tessera

#endif  // TESSERA_BENCH_LOG_STORE_H_
