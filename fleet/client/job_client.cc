#include "fleet/client/job_client.h"

#include "fleet/client/channel.h"
#include "fleet/client/retry.h"
#include "fleet/secrets.h"

namespace tessera {
namespace fleet {

JobClient::JobClient(TrackerOptions options)
    : options_(std::move(options)),
      channel_(MakeChannel(options_.address, options_.tls_ca_file)),
      stub_(jobs::v1::JobService::NewStub(channel_)) {}

void JobClient::Call(const char* what,
                     const std::function<grpc::Status(grpc::ClientContext*)>& call) {
  CallWithRetry(std::string("tracker ") + options_.address + " (" + what + ")",
                options_.retry_window_ms, [&] {
                  grpc::ClientContext context;
                  PrepareTrackerCall(&context, options_.token, options_.rpc_timeout_ms);
                  return call(&context);
                });
}

std::string JobClient::Submit(const jobs::v1::SubmitRequest& request) {
  // The id is chosen once, before any retry: a retried submission whose first reply was lost
  // names the job it created instead of creating a second one.
  jobs::v1::SubmitRequest once = request;
  if (once.job_id().empty()) once.set_job_id(RandomHexId(8));
  jobs::v1::SubmitReply reply;
  Call("Submit", [&](grpc::ClientContext* c) { return stub_->Submit(c, once, &reply); });
  return reply.job_id();
}

jobs::v1::JobList JobClient::List() {
  jobs::v1::ListRequest request;
  jobs::v1::JobList reply;
  Call("List", [&](grpc::ClientContext* c) { return stub_->List(c, request, &reply); });
  return reply;
}

jobs::v1::JobStatus JobClient::Status(const std::string& job_id) {
  jobs::v1::JobRef ref;
  ref.set_job_id(job_id);
  jobs::v1::JobStatus reply;
  Call("Status", [&](grpc::ClientContext* c) { return stub_->Status(c, ref, &reply); });
  return reply;
}

jobs::v1::JobStatus JobClient::Cancel(const std::string& job_id) {
  jobs::v1::JobRef ref;
  ref.set_job_id(job_id);
  jobs::v1::JobStatus reply;
  Call("Cancel", [&](grpc::ClientContext* c) { return stub_->Cancel(c, ref, &reply); });
  return reply;
}

std::optional<jobs::v1::WorkLease> JobClient::Lease(const std::string& worker_id) {
  jobs::v1::LeaseRequest request;
  request.set_worker_id(worker_id);
  jobs::v1::LeaseReply reply;
  Call("Lease", [&](grpc::ClientContext* c) { return stub_->Lease(c, request, &reply); });
  if (!reply.has_work()) return std::nullopt;
  return reply.lease();
}

bool JobClient::Renew(const std::string& lease_id, const std::string& worker_id) {
  jobs::v1::RenewRequest request;
  request.set_lease_id(lease_id);
  request.set_worker_id(worker_id);
  jobs::v1::RenewReply reply;
  bool over = false;
  Call("Renew", [&](grpc::ClientContext* c) {
    grpc::Status status = stub_->Renew(c, request, &reply);
    over = status.error_code() == grpc::StatusCode::ABORTED;
    return over ? grpc::Status::OK : status;
  });
  return !over;
}

std::optional<jobs::v1::ReportReply> JobClient::Report(const jobs::v1::ReportRequest& request) {
  jobs::v1::ReportReply reply;
  bool over = false;
  Call("Report", [&](grpc::ClientContext* c) {
    grpc::Status status = stub_->Report(c, request, &reply);
    over = status.error_code() == grpc::StatusCode::ABORTED;
    return over ? grpc::Status::OK : status;
  });
  if (over) return std::nullopt;
  return reply;
}

jobs::v1::HistoryReply JobClient::History(const std::string& lease_id,
                                          const std::string& worker_id) {
  jobs::v1::HistoryRequest request;
  request.set_lease_id(lease_id);
  request.set_worker_id(worker_id);
  jobs::v1::HistoryReply reply;
  Call("History", [&](grpc::ClientContext* c) { return stub_->History(c, request, &reply); });
  return reply;
}

}  // namespace fleet
}  // namespace tessera
