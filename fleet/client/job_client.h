/// \file
/// `JobClient`: talks to the tracker's job service (`proto/jobs.proto`) for `tessera job` and
/// for tuner workers: submit, list, watch and cancel jobs; lease, renew and report batches.
/// Calls that fail UNAVAILABLE (a tracker restarting) are retried within the retry window.
#ifndef TESSERA_FLEET_CLIENT_JOB_CLIENT_H_
#define TESSERA_FLEET_CLIENT_JOB_CLIENT_H_

#include <memory>
#include <optional>
#include <string>

#include "fleet/client/tracker_client.h"
#include "proto/jobs.grpc.pb.h"

namespace tessera {
namespace fleet {

/// A client of one tracker's job service; thread-safe.
class JobClient {
 public:
  /// A client for `options.address` (token, TLS, retry window and call deadline as for the
  /// tracker's session calls).
  explicit JobClient(TrackerOptions options);

  /// Submits a job; returns its id. Throws `FleetError` kInvalidArgument with the tracker's
  /// reason for a job it refuses.
  std::string Submit(const jobs::v1::SubmitRequest& request);
  /// Every job.
  jobs::v1::JobList List();
  /// One job; throws kNotFound for an unknown id.
  jobs::v1::JobStatus Status(const std::string& job_id);
  /// Cancels a job; returns its status.
  jobs::v1::JobStatus Cancel(const std::string& job_id);

  /// The next batch for `worker_id`, or nullopt when there is none.
  std::optional<jobs::v1::WorkLease> Lease(const std::string& worker_id);
  /// Renews a lease; false when it is over (expired, cancelled).
  bool Renew(const std::string& lease_id, const std::string& worker_id);
  /// Reports a batch; nullopt when the lease is over and the records were refused.
  std::optional<jobs::v1::ReportReply> Report(const jobs::v1::ReportRequest& request);
  /// The shared log's records a lease's task learns from.
  jobs::v1::HistoryReply History(const std::string& lease_id, const std::string& worker_id);

  /// The tracker's address.
  const std::string& address() const { return options_.address; }

 private:
  void Call(const char* what, const std::function<grpc::Status(grpc::ClientContext*)>& call);

  TrackerOptions options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<jobs::v1::JobService::Stub> stub_;
};

}  // namespace fleet
}  // namespace tessera

#endif  // TESSERA_FLEET_CLIENT_JOB_CLIENT_H_
