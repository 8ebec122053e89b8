#include "tracker/log_service.h"

#include <exception>
#include <vector>

#include "common/log.h"
#include "fleet/log_wire.h"
#include "records/record_check.h"
#include "tracker/authorize.h"

namespace tessera {
namespace tracker {
namespace {

// A failing query is the tracker's problem, not the caller's: it reports, it never crashes.
grpc::Status Internal(const char* rpc, const std::exception& e) {
  TESSERA_LOG(kWarning) << "log query failed rpc=" << rpc << " error=" << e.what();
  return grpc::Status(grpc::StatusCode::INTERNAL, std::string(rpc) + ": " + e.what());
}

}  // namespace

LogService::LogService(SharedLog* log, AccessTokens tokens)
    : log_(*log), tokens_(std::move(tokens)) {}

grpc::Status LogService::Best(grpc::ServerContext* context, const log::v1::BestRequest* request,
                              log::v1::BestReply* reply) {
  if (grpc::Status auth = AuthorizeCall(*context, tokens_, Access::kRead); !auth.ok()) return auth;
  try {
    const records::RecordFilter filter = fleet::FilterFromWire(request->filter());
    log_.With([&](records::TuningLog& log) {
      const std::vector<records::WorkloadStats> stats = log.Stats(filter);
      reply->set_workloads(static_cast<int64_t>(stats.size()));
      for (const records::WorkloadStats& s : stats) {
        if (auto best = log.Best(s.workload_key, s.target)) *reply->add_records() = *best;
      }
    });
    return grpc::Status::OK;
  } catch (const std::exception& e) {
    return Internal("Best", e);
  }
}

grpc::Status LogService::List(grpc::ServerContext* context, const log::v1::ListRequest* request,
                              grpc::ServerWriter<log::v1::RecordChunk>* writer) {
  if (grpc::Status auth = AuthorizeCall(*context, tokens_, Access::kRead); !auth.ok()) return auth;
  std::vector<tuning::MeasureRecord> records;
  try {
    const records::RecordFilter filter = fleet::FilterFromWire(request->filter());
    records = log_.With([&](records::TuningLog& log) { return log.List(filter); });
  } catch (const std::exception& e) {
    return Internal("List", e);
  }
  // Streamed outside the lock: a slow reader must not stall the other handlers.
  log::v1::RecordChunk chunk;
  for (size_t i = 0; i < records.size(); ++i) {
    *chunk.add_records() = std::move(records[i]);
    if (chunk.records_size() == kListChunkRecords || i + 1 == records.size()) {
      if (!writer->Write(chunk)) {
        return grpc::Status(grpc::StatusCode::CANCELLED, "List: the client went away");
      }
      chunk.Clear();
    }
  }
  return grpc::Status::OK;
}

grpc::Status LogService::Stats(grpc::ServerContext* context, const log::v1::StatsRequest* request,
                               log::v1::StatsReply* reply) {
  if (grpc::Status auth = AuthorizeCall(*context, tokens_, Access::kRead); !auth.ok()) return auth;
  try {
    const records::RecordFilter filter = fleet::FilterFromWire(request->filter());
    log_.With([&](records::TuningLog& log) {
      for (const records::WorkloadStats& s : log.Stats(filter)) {
        *reply->add_workloads() = fleet::StatsToWire(s);
      }
      reply->set_total_records(log.Count());
    });
    return grpc::Status::OK;
  } catch (const std::exception& e) {
    return Internal("Stats", e);
  }
}

grpc::Status LogService::Push(grpc::ServerContext* context, const log::v1::PushRequest* request,
                              log::v1::PushReply* reply) {
  if (grpc::Status auth = AuthorizeCall(*context, tokens_, Access::kWrite); !auth.ok()) return auth;
  if (request->records_size() > fleet::kMaxPushRecords) {
    return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                        "Push: " + std::to_string(request->records_size()) +
                            " records in one batch (at most " +
                            std::to_string(fleet::kMaxPushRecords) + "); nothing was written");
  }
  // Every record is checked before the first is written: a batch goes in whole or not at all.
  for (int i = 0; i < request->records_size(); ++i) {
    const std::string problem = records::RecordProblem(request->records(i));
    if (!problem.empty()) {
      return grpc::Status(
          grpc::StatusCode::INVALID_ARGUMENT,
          "Push: record " + std::to_string(i) + ": " + problem + "; nothing was written");
    }
  }
  try {
    const std::vector<tuning::MeasureRecord> records(request->records().begin(),
                                                     request->records().end());
    const records::ImportResult result =
        log_.With([&](records::TuningLog& log) { return log.ImportRecords(records); });
    reply->set_imported(result.imported);
    reply->set_duplicates(result.duplicates);
    TESSERA_LOG(kInfo) << "records pushed peer=" << context->peer()
                       << " imported=" << result.imported << " duplicates=" << result.duplicates;
    return grpc::Status::OK;
  } catch (const std::exception& e) {
    return Internal("Push", e);
  }
}

}  // namespace tracker
}  // namespace tessera
