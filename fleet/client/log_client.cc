#include "fleet/client/log_client.h"

#include "fleet/client/channel.h"
#include "fleet/client/fleet_error.h"
#include "fleet/client/retry.h"
#include "fleet/log_wire.h"

namespace tessera {
namespace fleet {

std::string TrackerLogAddress(const std::string& db) {
  const std::string scheme = kTrackerLogScheme;
  if (db.compare(0, scheme.size(), scheme) != 0) return "";
  return db.substr(scheme.size());
}

std::unique_ptr<records::RecordSource> OpenRecordSource(const std::string& db,
                                                        const std::string& token_file,
                                                        const std::string& tls_ca_file) {
  if (const std::string tracker = TrackerLogAddress(db); !tracker.empty()) {
    return std::make_unique<LogClient>(TrackerOptionsFor(tracker, token_file, tls_ca_file));
  }
  if (db.empty()) return nullptr;
  return records::TuningLog::Open(db, /*create=*/false);
}

LogClient::LogClient(TrackerOptions options)
    : options_(std::move(options)),
      channel_(MakeChannel(options_.address, options_.tls_ca_file)),
      stub_(log::v1::LogService::NewStub(channel_)) {}

std::string LogClient::SourceName() const { return kTrackerLogScheme + options_.address; }

std::string LogClient::Where(const char* rpc) const {
  return "tracker " + options_.address + " (" + rpc + ")";
}

BestRecords LogClient::Best(const records::RecordFilter& filter) const {
  log::v1::BestRequest request;
  *request.mutable_filter() = FilterToWire(filter);
  log::v1::BestReply reply;
  CallWithRetry(Where("Best"), options_.retry_window_ms, [&] {
    grpc::ClientContext context;
    PrepareTrackerCall(&context, options_.token, options_.rpc_timeout_ms);
    return stub_->Best(&context, request, &reply);
  });
  return {{reply.records().begin(), reply.records().end()}, reply.workloads()};
}

void LogClient::ForEach(const records::RecordFilter& filter,
                        const std::function<void(const tuning::MeasureRecord&)>& each) const {
  log::v1::ListRequest request;
  *request.mutable_filter() = FilterToWire(filter);
  // Only a stream that has delivered nothing is retried: records are never handed out twice.
  bool delivered = false;
  CallWithRetry(Where("List"), options_.retry_window_ms, [&] {
    if (delivered) return grpc::Status(grpc::StatusCode::ABORTED, "the stream broke off");
    grpc::ClientContext context;
    PrepareTrackerCall(&context, options_.token, options_.rpc_timeout_ms * 30);
    std::unique_ptr<grpc::ClientReader<log::v1::RecordChunk>> reader =
        stub_->List(&context, request);
    log::v1::RecordChunk chunk;
    while (reader->Read(&chunk)) {
      delivered = true;
      for (const tuning::MeasureRecord& record : chunk.records()) each(record);
    }
    return reader->Finish();
  });
}

std::vector<tuning::MeasureRecord> LogClient::List(const records::RecordFilter& filter) const {
  std::vector<tuning::MeasureRecord> records;
  ForEach(filter, [&](const tuning::MeasureRecord& r) { records.push_back(r); });
  return records;
}

std::vector<records::WorkloadStats> LogClient::Stats(const records::RecordFilter& filter) const {
  log::v1::StatsRequest request;
  *request.mutable_filter() = FilterToWire(filter);
  log::v1::StatsReply reply;
  CallWithRetry(Where("Stats"), options_.retry_window_ms, [&] {
    grpc::ClientContext context;
    PrepareTrackerCall(&context, options_.token, options_.rpc_timeout_ms);
    return stub_->Stats(&context, request, &reply);
  });
  std::vector<records::WorkloadStats> stats;
  for (const log::v1::WorkloadStats& s : reply.workloads()) stats.push_back(StatsFromWire(s));
  return stats;
}

records::ImportResult LogClient::Push(const std::vector<tuning::MeasureRecord>& records) const {
  records::ImportResult total;
  size_t next = 0;
  while (next < records.size()) {
    log::v1::PushRequest request;
    size_t bytes = 0;
    // At least one record per batch; one too large for the tracker is refused there by name.
    while (
        next < records.size() && request.records_size() < kMaxPushRecords &&
        (request.records_size() == 0 || bytes + records[next].ByteSizeLong() <= kPushBatchBytes)) {
      bytes += records[next].ByteSizeLong();
      *request.add_records() = records[next++];
    }
    log::v1::PushReply reply;
    // A retried batch that did land the first time comes back as duplicates: nothing doubles.
    CallWithRetry(Where("Push"), options_.retry_window_ms, [&] {
      grpc::ClientContext context;
      PrepareTrackerCall(&context, options_.token, options_.rpc_timeout_ms * 6);
      return stub_->Push(&context, request, &reply);
    });
    total.imported += reply.imported();
    total.duplicates += reply.duplicates();
  }
  return total;
}

}  // namespace fleet
}  // namespace tessera
