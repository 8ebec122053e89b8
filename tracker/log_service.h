/// \file
/// `LogService`: the tracker's shared tuning log on the wire (`proto/log_service.proto`). Builds
/// anywhere read the best records, users push local ones; the service stores and serves records,
/// it never builds. Every RPC checks the tracker's token (`tracker/authorize.h`).
#ifndef TESSERA_TRACKER_LOG_SERVICE_H_
#define TESSERA_TRACKER_LOG_SERVICE_H_

#include <string>

#include "fleet/log_wire.h"
#include "proto/log_service.grpc.pb.h"
#include "tracker/authorize.h"
#include "tracker/shared_log.h"

namespace tessera {
namespace tracker {

/// Records per streamed `List` chunk.
constexpr int kListChunkRecords = 512;

/// The tracker's tuning-log RPCs over `log`.
class LogService final : public log::v1::LogService::Service {
 public:
  /// Serves `log` (which outlives the service) to callers holding `tokens` (empty: loopback
  /// only); the read-only token may call `Best`, `List` and `Stats`.
  LogService(SharedLog* log, AccessTokens tokens);

  /// The fastest successful record per (workload, target) matching the filter.
  grpc::Status Best(grpc::ServerContext* context, const log::v1::BestRequest* request,
                    log::v1::BestReply* reply) override;
  /// Records matching the filter, in insertion order, in chunks.
  grpc::Status List(grpc::ServerContext* context, const log::v1::ListRequest* request,
                    grpc::ServerWriter<log::v1::RecordChunk>* writer) override;
  /// Records, failures and best cost per (workload, target).
  grpc::Status Stats(grpc::ServerContext* context, const log::v1::StatsRequest* request,
                     log::v1::StatsReply* reply) override;
  /// Validates a batch and appends what is new in one transaction (all or nothing).
  grpc::Status Push(grpc::ServerContext* context, const log::v1::PushRequest* request,
                    log::v1::PushReply* reply) override;

 private:
  SharedLog& log_;
  const AccessTokens tokens_;
};

}  // namespace tracker
}  // namespace tessera

#endif  // TESSERA_TRACKER_LOG_SERVICE_H_
