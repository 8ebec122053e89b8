/// \file
/// The tuning log's types on the wire (`proto/log_service.proto`) and back: the tracker's
/// `LogService` and the client's `LogClient` convert through these, so both ends agree.
#ifndef TESSERA_FLEET_LOG_WIRE_H_
#define TESSERA_FLEET_LOG_WIRE_H_

#include "proto/log_service.pb.h"
#include "records/tuning_log.h"

namespace tessera {
namespace fleet {

/// Most records one `Push` may carry (the tracker refuses more; clients send several batches).
constexpr int kMaxPushRecords = 5000;
/// Most bytes of records one `Push` carries from `LogClient` (gRPC's default message limit is
/// 4 MiB; a larger message is refused before the tracker reads it).
constexpr size_t kPushBatchBytes = 1 << 20;

/// `filter` as sent (a limit of -1, "all", becomes 0).
log::v1::RecordFilter FilterToWire(const records::RecordFilter& filter);
/// A received filter (a limit of 0 means all; a negative one too).
records::RecordFilter FilterFromWire(const log::v1::RecordFilter& filter);
/// One summary as sent.
log::v1::WorkloadStats StatsToWire(const records::WorkloadStats& stats);
/// A received summary.
records::WorkloadStats StatsFromWire(const log::v1::WorkloadStats& stats);

}  // namespace fleet
}  // namespace tessera

#endif  // TESSERA_FLEET_LOG_WIRE_H_
