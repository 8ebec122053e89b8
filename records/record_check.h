/// \file
/// What a tuning record must look like before a log accepts it from outside (a push to the
/// tracker, a worker's report): sizes, keys and costs that a build can use. Local appends by the
/// tuner are trusted and not checked here.
#ifndef TESSERA_RECORDS_RECORD_CHECK_H_
#define TESSERA_RECORDS_RECORD_CHECK_H_

#include <cstdint>
#include <string>

#include "proto/tuning.pb.h"

namespace tessera {
namespace records {

/// Longest workload key, target, device key or tuner version accepted (bytes).
constexpr size_t kMaxRecordKeyBytes = 1024;
/// Longest error message accepted (bytes).
constexpr size_t kMaxRecordMessageBytes = 16 << 10;
/// Most repeats (costs) one record may carry.
constexpr int kMaxRecordCosts = 1024;
/// Most knobs one configuration may carry.
constexpr int kMaxRecordKnobs = 256;

/// Why `record` cannot go into a shared log ("costs[2] is negative (-1)"), or "" when it can.
std::string RecordProblem(const tuning::MeasureRecord& record);

}  // namespace records
}  // namespace tessera

#endif  // TESSERA_RECORDS_RECORD_CHECK_H_
