#include "tracker/tracker_service.h"

#include <chrono>

#include "fleet/secrets.h"
#include "proto/grant.h"
#include "proto/server_proof.h"
#include "tracker/authorize.h"

namespace tessera {
namespace tracker {

TrackerService::TrackerService(FleetSettings settings, std::string token,
                               std::unique_ptr<StateStore> store,
                               std::shared_ptr<const Clock> clock)
    : token_(std::move(token)),
      clock_source_(std::move(clock)),
      store_(std::move(store)),
      state_(settings) {
  // Without a shared token the key is private to this run and handed to (loopback) servers.
  grant_key_ = token_.empty() ? fleet::RandomBytes(32) : fleet::GrantKeyFromToken(token_);
  const int64_t now = Now();
  if (store_) {
    store_->Load(&state_);
    state_.DeadlinesFromUnix();
  }
  state_.SetStartTime(now);
  clock_ = std::thread([this] { ClockLoop(); });
}

TrackerService::~TrackerService() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  clock_.join();
}

// Steady time, with the wall clock's offset handed to the state for the grants it writes.
int64_t TrackerService::Now() {
  const int64_t steady = clock_source_->SteadyMillis();
  state_.SetUnixOffset(clock_source_->UnixMillis() - steady);
  return steady;
}

grpc::Status TrackerService::Authorize(grpc::ServerContext* context) const {
  return AuthorizeCall(*context, token_);
}

void TrackerService::Record(const std::map<std::string, RequestOutcome>& outcomes) {
  for (const auto& [id, outcome] : outcomes) {
    outcomes_[id] = outcome;
    outcome_times_[id] = Now();
    if (store_) store_->DeleteRequest(id);
  }
  for (const auto& [id, outcome] : outcomes) {
    auto waiter = waiters_.find(id);
    if (waiter != waiters_.end()) waiter->second->notify_one();
  }
}

void TrackerService::DispatchLocked(int64_t now_ms) { Record(state_.Dispatch(now_ms)); }

void TrackerService::ClockLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    int64_t now = Now();
    Record(state_.Expire(now));
    DispatchLocked(now);
    // Outcomes nobody waits for (requests restored from disk whose client never came back).
    for (auto it = outcome_times_.begin(); it != outcome_times_.end();) {
      if (now - it->second < 60000) {
        ++it;
        continue;
      }
      outcomes_.erase(it->first);
      it = outcome_times_.erase(it);
    }
    changed_.wait_for(lock, std::chrono::milliseconds(20));
  }
}

grpc::Status TrackerService::Register(grpc::ServerContext* context,
                                      const v1::RegisterRequest* request,
                                      v1::RegisterReply* reply) {
  if (grpc::Status auth = Authorize(context); !auth.ok()) return auth;
  if (request->server_id().empty() || request->key().empty() || request->address().empty()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "Register needs server_id, key and address");
  }
  std::lock_guard<std::mutex> lock(mu_);
  int64_t now = Now();
  state_.RegisterServer(*request, now);
  if (store_) store_->SaveServer(state_.servers().at(request->server_id()));
  reply->set_heartbeat_ms(state_.settings().heartbeat_ms);
  reply->set_lease_timeout_ms(state_.settings().lease_timeout_ms);
  if (token_.empty()) reply->set_grant_key(grant_key_);
  DispatchLocked(now);
  return grpc::Status::OK;
}

grpc::Status TrackerService::Heartbeat(grpc::ServerContext* context,
                                       const v1::HeartbeatRequest* request,
                                       v1::HeartbeatReply* reply) {
  if (grpc::Status auth = Authorize(context); !auth.ok()) return auth;
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> ended;
  if (!state_.Heartbeat(request->server_id(), request->active_session_id(), Now(), &ended)) {
    return grpc::Status(grpc::StatusCode::NOT_FOUND,
                        "server '" + request->server_id() + "' is not registered; register again");
  }
  for (const std::string& id : ended) reply->add_ended_session_ids(id);
  return grpc::Status::OK;
}

grpc::Status TrackerService::RequestSession(grpc::ServerContext* context,
                                            const v1::SessionRequest* request,
                                            v1::SessionReply* reply) {
  if (grpc::Status auth = Authorize(context); !auth.ok()) return auth;
  if (request->key().empty()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "RequestSession needs a device key");
  }
  if (request->queue_timeout_ms() <= 0) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "RequestSession needs a positive queue_timeout_ms, got " +
                            std::to_string(request->queue_timeout_ms()));
  }
  PendingRequest pending;
  pending.request_id = request->request_id().empty() ? fleet::RandomHexId() : request->request_id();
  pending.key = request->key();
  pending.user = request->user();
  pending.priority = request->priority();
  pending.session_limit_ms = request->session_limit_ms();
  const std::string id = pending.request_id;

  std::unique_lock<std::mutex> lock(mu_);
  int64_t now = Now();
  pending.deadline_ms = now + request->queue_timeout_ms();
  bool known = state_.queue().count(id) != 0;
  state_.Enqueue(pending);
  if (store_ && !known) store_->SaveRequest(state_.WithUnixDeadline(state_.queue().at(id)));
  auto waiter = std::make_shared<std::condition_variable>();
  waiters_[id] = waiter;
  struct Unregister {
    TrackerService* self;
    std::string id;
    ~Unregister() { self->waiters_.erase(id); }  // runs with mu_ held (the lock outlives it)
  } unregister{this, id};
  DispatchLocked(now);
  while (true) {
    auto it = outcomes_.find(id);
    if (it != outcomes_.end()) {
      RequestOutcome outcome = it->second;
      outcomes_.erase(it);
      outcome_times_.erase(id);
      if (!outcome.granted) return grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, outcome.error);
      fleet::SignGrant(grant_key_, &outcome.grant);
      *reply->mutable_grant() = outcome.grant;
      reply->set_server_proof_key(fleet::ServerProofKey(grant_key_, outcome.grant));
      reply->set_keepalive_ms(state_.settings().heartbeat_ms);
      return grpc::Status::OK;
    }
    if (context->IsCancelled() || stopping_) {
      state_.Cancel(id);
      if (store_) store_->DeleteRequest(id);
      return grpc::Status(grpc::StatusCode::CANCELLED, "request cancelled");
    }
    // The timeout only bounds how late a client that went away is noticed.
    waiter->wait_for(lock, std::chrono::milliseconds(100));
  }
}

grpc::Status TrackerService::KeepSession(grpc::ServerContext* context,
                                         const v1::SessionRef* request, v1::Empty*) {
  if (grpc::Status auth = Authorize(context); !auth.ok()) return auth;
  std::lock_guard<std::mutex> lock(mu_);
  std::string why = state_.KeepSession(request->session_id(), Now());
  if (why.empty()) return grpc::Status::OK;
  if (why.rfind("device lost", 0) == 0) return grpc::Status(grpc::StatusCode::ABORTED, why);
  return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "session ended: " + why);
}

grpc::Status TrackerService::ReleaseSession(grpc::ServerContext* context,
                                            const v1::SessionRef* request, v1::Empty*) {
  if (grpc::Status auth = Authorize(context); !auth.ok()) return auth;
  std::lock_guard<std::mutex> lock(mu_);
  int64_t now = Now();
  state_.ReleaseSession(request->session_id(), now);
  DispatchLocked(now);
  return grpc::Status::OK;
}

grpc::Status TrackerService::Status(grpc::ServerContext* context, const v1::StatusRequest*,
                                    v1::FleetStatus* reply) {
  if (grpc::Status auth = Authorize(context); !auth.ok()) return auth;
  *reply = Snapshot();
  return grpc::Status::OK;
}

v1::FleetStatus TrackerService::Snapshot() {
  std::lock_guard<std::mutex> lock(mu_);
  return state_.Status(Now());
}

}  // namespace tracker
}  // namespace tessera
