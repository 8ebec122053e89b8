#include "tracker/jobs/job_service.h"

#include <map>
#include <set>

#include "common/error.h"
#include "common/log.h"
#include "tracker/authorize.h"

namespace tessera {
namespace tracker {
namespace {

constexpr size_t kMaxIdLength = 128;

grpc::Status StatusOfRefusal(const Refusal& refusal) {
  switch (refusal.kind) {
    case Refusal::kInvalid:
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, refusal.message);
    case Refusal::kNotFound:
      return grpc::Status(grpc::StatusCode::NOT_FOUND, refusal.message);
    case Refusal::kExpired:
      return grpc::Status(grpc::StatusCode::ABORTED, refusal.message);
    case Refusal::kNotYours:
      return grpc::Status(grpc::StatusCode::PERMISSION_DENIED, refusal.message);
    case Refusal::kNone:
      break;
  }
  return grpc::Status::OK;
}

// Ids and worker names come from the network: bounded before they reach a log line or a map.
grpc::Status CheckId(const std::string& what, const std::string& id) {
  if (id.empty() || id.size() > kMaxIdLength) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        what + " must be 1.." + std::to_string(kMaxIdLength) + " characters");
  }
  for (char c : id) {
    if (c < 0x21 || c >= 0x7f) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          what + " must be printable ASCII without spaces");
    }
  }
  return grpc::Status::OK;
}

}  // namespace

JobService::JobService(const std::string& state_dir, std::string token, SharedLog* log,
                       int64_t lease_ms, std::shared_ptr<const Clock> clock,
                       const std::string& jobs_db)
    : token_(std::move(token)), log_(log), clock_(std::move(clock)), lease_ms_(lease_ms) {
  std::string dir = state_dir;
  if (dir.empty() && jobs_db.empty()) {
    scratch_ = std::make_unique<TempDir>("tessera-tracker-jobs");
    dir = scratch_->path();
  }
  store_ = std::make_unique<JobStore>(dir, jobs_db);
  JobStore::Lock store_lock(*store_);
  board_ = std::make_unique<JobBoard>(store_.get(), lease_ms_, LeaseClock());
  ReplayUnlogged();
}

int64_t JobService::LeaseClock() {
  return store_->shared() ? store_->NowMillis() : clock_->SteadyMillis();
}

template <typename Call>
grpc::Status JobService::Serve(Call&& call) {
  std::lock_guard<std::mutex> lock(mu_);
  try {
    JobStore::Lock store_lock(*store_);
    if (reload_ || (store_->shared() && store_->ChangedElsewhere())) {
      auto fresh = std::make_unique<JobBoard>(store_.get(), lease_ms_, LeaseClock());
      fresh->InheritFairShare(*board_);
      board_ = std::move(fresh);
      reload_ = false;
      try {
        ReplayUnlogged();
      } catch (const std::exception& error) {
        // The records stay with their job for the next load; the call itself can go on.
        TESSERA_LOG(kError) << "jobs: cannot write reported records to the tuning log: "
                            << error.what();
      }
    }
    return std::forward<Call>(call)();
  } catch (const ConfigError& error) {
    // The board may hold what the store did not take: the next call loads it again.
    reload_ = true;
    TESSERA_LOG(kError) << "jobs: " << error.what();
    return grpc::Status(grpc::StatusCode::UNAVAILABLE, error.what());
  }
}

// Records stored with their job but not yet in the log (the tracker died between the two
// writes) go in now; a configuration the log already has for that workload and target was the
// write that did happen.
void JobService::ReplayUnlogged() {
  std::vector<tuning::MeasureRecord> unlogged = board_->UnloggedRecords();
  if (unlogged.empty()) return;
  log_->With([&](records::TuningLog& log) {
    std::map<std::pair<std::string, std::string>, std::set<int64_t>> present;
    std::vector<tuning::MeasureRecord> missing;
    for (const tuning::MeasureRecord& record : unlogged) {
      auto key = std::make_pair(record.workload_key(), record.target());
      if (present.count(key) == 0) present[key] = log.MeasuredConfigs(key.first, key.second);
      if (present[key].insert(record.config_index()).second) missing.push_back(record);
    }
    log.AppendBatch(missing);
    TESSERA_LOG(kInfo) << "jobs: " << missing.size() << " reported record(s) written to the log "
                       << "after a restart";
  });
  board_->MarkAllLogged();
}

grpc::Status JobService::Submit(grpc::ServerContext* context,
                                const jobs::v1::SubmitRequest* request,
                                jobs::v1::SubmitReply* reply) {
  if (grpc::Status auth = AuthorizeCall(*context, token_); !auth.ok()) return auth;
  std::string invalid = ValidateSubmit(*request);
  if (!invalid.empty()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "job refused: " + invalid);
  }
  return Serve([&] {
    std::string id = board_->Submit(*request, clock_->UnixMillis());
    if (id.empty()) {
      return grpc::Status(
          grpc::StatusCode::ALREADY_EXISTS,
          "job refused: job id '" + request->job_id() + "' belongs to another submission");
    }
    reply->set_job_id(id);
    return grpc::Status::OK;
  });
}

grpc::Status JobService::List(grpc::ServerContext* context, const jobs::v1::ListRequest*,
                              jobs::v1::JobList* reply) {
  if (grpc::Status auth = AuthorizeCall(*context, token_); !auth.ok()) return auth;
  return Serve([&] {
    board_->Expire(LeaseClock());
    *reply = board_->List(clock_->UnixMillis());
    return grpc::Status::OK;
  });
}

jobs::v1::JobList JobService::Snapshot() {
  jobs::v1::JobList list;
  Serve([&] {  // a failing store was logged: the dashboard shows no jobs until it is back
    board_->Expire(LeaseClock());
    list = board_->List(clock_->UnixMillis());
    return grpc::Status::OK;
  });
  return list;
}

grpc::Status JobService::Status(grpc::ServerContext* context, const jobs::v1::JobRef* request,
                                jobs::v1::JobStatus* reply) {
  if (grpc::Status auth = AuthorizeCall(*context, token_); !auth.ok()) return auth;
  if (grpc::Status id = CheckId("job id", request->job_id()); !id.ok()) return id;
  return Serve([&] {
    board_->Expire(LeaseClock());
    std::optional<jobs::v1::JobStatus> status =
        board_->Status(request->job_id(), clock_->UnixMillis());
    if (!status) {
      return grpc::Status(grpc::StatusCode::NOT_FOUND, "no job '" + request->job_id() + "'");
    }
    *reply = *status;
    return grpc::Status::OK;
  });
}

grpc::Status JobService::Cancel(grpc::ServerContext* context, const jobs::v1::JobRef* request,
                                jobs::v1::JobStatus* reply) {
  if (grpc::Status auth = AuthorizeCall(*context, token_); !auth.ok()) return auth;
  if (grpc::Status id = CheckId("job id", request->job_id()); !id.ok()) return id;
  return Serve([&] {
    if (!board_->Cancel(request->job_id())) {
      return grpc::Status(grpc::StatusCode::NOT_FOUND, "no job '" + request->job_id() + "'");
    }
    *reply = *board_->Status(request->job_id(), clock_->UnixMillis());
    return grpc::Status::OK;
  });
}

grpc::Status JobService::Lease(grpc::ServerContext* context, const jobs::v1::LeaseRequest* request,
                               jobs::v1::LeaseReply* reply) {
  if (grpc::Status auth = AuthorizeCall(*context, token_); !auth.ok()) return auth;
  if (grpc::Status id = CheckId("worker id", request->worker_id()); !id.ok()) return id;
  return Serve([&] {
    const int64_t now = LeaseClock();
    board_->Expire(now);
    std::optional<jobs::v1::WorkLease> lease =
        board_->Lease(request->worker_id(), now, clock_->UnixMillis(), brokers_);
    reply->set_has_work(lease.has_value());
    if (lease) *reply->mutable_lease() = *lease;
    return grpc::Status::OK;
  });
}

grpc::Status JobService::Renew(grpc::ServerContext* context, const jobs::v1::RenewRequest* request,
                               jobs::v1::RenewReply*) {
  if (grpc::Status auth = AuthorizeCall(*context, token_); !auth.ok()) return auth;
  if (grpc::Status id = CheckId("lease id", request->lease_id()); !id.ok()) return id;
  return Serve([&] {
    const int64_t now = LeaseClock();
    board_->Expire(now);
    return StatusOfRefusal(board_->Renew(request->lease_id(), request->worker_id(), now));
  });
}

grpc::Status JobService::Report(grpc::ServerContext* context,
                                const jobs::v1::ReportRequest* request,
                                jobs::v1::ReportReply* reply) {
  if (grpc::Status auth = AuthorizeCall(*context, token_); !auth.ok()) return auth;
  if (grpc::Status id = CheckId("lease id", request->lease_id()); !id.ok()) return id;
  return Serve([&] {
    board_->Expire(LeaseClock());
    ReportResult result = board_->Report(*request, clock_->UnixMillis());
    if (result.refusal) return StatusOfRefusal(result.refusal);
    *reply = result.reply;
    if (result.accepted.empty()) return grpc::Status::OK;
    try {
      log_->With([&](records::TuningLog& log) { log.AppendBatch(result.accepted); });
      board_->MarkLogged(request->lease_id());
    } catch (const std::exception& error) {
      // The records are safe with their job and go into the log when the tracker (or, for a
      // shared store, the next tracker to load it) starts again.
      TESSERA_LOG(kError) << "jobs: cannot write reported records to the tuning log: "
                          << error.what();
    }
    return grpc::Status::OK;
  });
}

grpc::Status JobService::History(grpc::ServerContext* context,
                                 const jobs::v1::HistoryRequest* request,
                                 jobs::v1::HistoryReply* reply) {
  if (grpc::Status auth = AuthorizeCall(*context, token_); !auth.ok()) return auth;
  if (grpc::Status id = CheckId("lease id", request->lease_id()); !id.ok()) return id;
  std::string workload_key, target;
  grpc::Status leased = Serve([&] {
    return StatusOfRefusal(
        board_->LeaseTask(request->lease_id(), request->worker_id(), &workload_key, &target));
  });
  if (!leased.ok()) return leased;
  records::RecordFilter filter;
  filter.template_name = records::TemplateOfWorkload(workload_key);
  filter.target = target;
  filter.limit = request->limit() > 0 && request->limit() < kMaxHistoryRecords ? request->limit()
                                                                               : kMaxHistoryRecords;
  std::vector<tuning::MeasureRecord> records =
      log_->With([&](records::TuningLog& log) { return log.List(filter); });
  for (tuning::MeasureRecord& record : records) *reply->add_records() = std::move(record);
  return grpc::Status::OK;
}

}  // namespace tracker
}  // namespace tessera
