#include "tracker/tracker_service.h"

#include <chrono>
#include <optional>

#include "fleet/secrets.h"
#include "proto/grant.h"
#include "proto/server_proof.h"
#include "tracker/authorize.h"

namespace tessera {
namespace tracker {

TrackerService::TrackerService(FleetSettings settings, AccessTokens tokens,
                               std::unique_ptr<StateStore> store,
                               std::shared_ptr<const Clock> clock)
    : tokens_(std::move(tokens)), clock_source_(std::move(clock)), state_(settings) {
  // Without a shared token the key is private to this run and handed to (loopback) servers.
  grant_key_ =
      tokens_.full.empty() ? fleet::RandomBytes(32) : fleet::GrantKeyFromToken(tokens_.full);
  const int64_t now = Now();
  if (store) {
    store->Load(&state_);
    state_.DeadlinesFromUnix();
    writer_ = std::make_unique<StateWriter>(std::move(store));
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

grpc::Status TrackerService::Authorize(const grpc::ServerContextBase& context, Access needs) const {
  return AuthorizeCall(context, tokens_, needs);
}

// A RequestSession call waiting in the queue. It lives until gRPC is done with it; the service
// answers it (or forgets it on cancellation) under `mu_` and finishes it after releasing `mu_`.
// A granted call is timed from its `GrantCause` until gRPC is done sending its reply.
class TrackerService::QueuedCall final : public grpc::ServerUnaryReactor {
 public:
  QueuedCall(TrackerService* service, std::string id, v1::SessionReply* reply)
      : service_(service), id_(std::move(id)), reply_(reply) {}
  void OnCancel() override { service_->Cancelled(this); }
  void OnDone() override {
    if (cause_) {
      service_->timings_.Add(cause_->path, Millis(decided_ - cause_->start),
                             Millis(std::chrono::steady_clock::now() - cause_->start));
    }
    delete this;
  }
  const std::string& id() const { return id_; }
  v1::SessionReply* reply() const { return reply_; }
  void GrantedBy(const GrantCause& cause) { cause_ = cause; }
  void Send(const grpc::Status& status) {
    decided_ = std::chrono::steady_clock::now();
    Finish(status);
  }

 private:
  static double Millis(std::chrono::steady_clock::duration d) {
    return std::chrono::duration<double, std::milli>(d).count();
  }

  TrackerService* service_;
  std::string id_;
  v1::SessionReply* reply_;
  std::optional<GrantCause> cause_;
  std::chrono::steady_clock::time_point decided_;
};

grpc::Status TrackerService::Answer(RequestOutcome outcome, v1::SessionReply* reply) const {
  if (!outcome.granted) return grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, outcome.error);
  fleet::SignGrant(grant_key_, &outcome.grant);
  *reply->mutable_grant() = outcome.grant;
  reply->set_server_proof_key(fleet::ServerProofKey(grant_key_, outcome.grant));
  reply->set_keepalive_ms(state_.settings().heartbeat_ms);
  return grpc::Status::OK;
}

void TrackerService::Record(const std::map<std::string, RequestOutcome>& outcomes,
                            const GrantCause* cause) {
  for (const auto& [id, outcome] : outcomes) {
    if (writer_) writer_->Add(StateChange::DeleteRequest(id));
    auto waiting = waiting_.find(id);
    if (waiting == waiting_.end()) {
      outcomes_[id] = outcome;
      outcome_times_[id] = Now();
      continue;
    }
    QueuedCall* call = waiting->second;
    waiting_.erase(waiting);
    if (cause != nullptr && outcome.granted) call->GrantedBy(*cause);
    ready_.emplace_back(call, Answer(outcome, call->reply()));
  }
}

void TrackerService::Cancelled(QueuedCall* call) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto waiting = waiting_.find(call->id());
    if (waiting == waiting_.end() || waiting->second != call) return;  // answered already
    waiting_.erase(waiting);
    state_.Cancel(call->id());
    if (writer_) writer_->Add(StateChange::DeleteRequest(call->id()));
    ready_.emplace_back(call, grpc::Status(grpc::StatusCode::CANCELLED, "request cancelled"));
  }
  FinishReady();
}

// Finishing a call may run gRPC callbacks that take `mu_`, so it happens after releasing it.
void TrackerService::FinishReady() {
  std::vector<std::pair<QueuedCall*, grpc::Status>> ready;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ready.swap(ready_);
  }
  for (auto& [call, status] : ready) call->Send(status);
}

void TrackerService::DispatchLocked(int64_t now_ms, const GrantCause* cause) {
  Record(state_.Dispatch(now_ms), cause);
}

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
    lock.unlock();
    FinishReady();
    lock.lock();
    ++clock_passes_;
    clock_passed_.notify_all();
    if (stopping_) break;
    changed_.wait_for(lock, std::chrono::milliseconds(20));
  }
  // Shutting down: whoever still waits hears so now rather than at its deadline.
  for (auto& [id, call] : waiting_) {
    ready_.emplace_back(call, grpc::Status(grpc::StatusCode::UNAVAILABLE, "tracker shutting down"));
  }
  waiting_.clear();
  lock.unlock();
  FinishReady();
}

bool TrackerService::AwaitClockPass(int64_t timeout_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  // The pass after the next: the next one may have read the clock before this call.
  const uint64_t wanted = clock_passes_ + 2;
  changed_.notify_all();
  return clock_passed_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] {
    return stopping_ || clock_passes_ >= wanted;
  }) && !stopping_;
}

grpc::Status TrackerService::Register(grpc::ServerContext* context,
                                      const v1::RegisterRequest* request,
                                      v1::RegisterReply* reply) {
  if (grpc::Status auth = Authorize(*context); !auth.ok()) return auth;
  if (request->server_id().empty() || request->key().empty() || request->address().empty()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "Register needs server_id, key and address");
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    int64_t now = Now();
    state_.RegisterServer(*request, now);
    if (writer_) writer_->Add(StateChange::SaveServer(state_.servers().at(request->server_id())));
    reply->set_heartbeat_ms(state_.settings().heartbeat_ms);
    reply->set_lease_timeout_ms(state_.settings().lease_timeout_ms);
    if (tokens_.full.empty()) reply->set_grant_key(grant_key_);
    DispatchLocked(now);
  }
  FinishReady();
  return grpc::Status::OK;
}

grpc::Status TrackerService::Heartbeat(grpc::ServerContext* context,
                                       const v1::HeartbeatRequest* request,
                                       v1::HeartbeatReply* reply) {
  if (grpc::Status auth = Authorize(*context); !auth.ok()) return auth;
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> ended;
  if (!state_.Heartbeat(request->server_id(), request->active_session_id(), Now(), &ended)) {
    return grpc::Status(grpc::StatusCode::NOT_FOUND,
                        "server '" + request->server_id() + "' is not registered; register again");
  }
  for (const std::string& id : ended) reply->add_ended_session_ids(id);
  return grpc::Status::OK;
}

grpc::ServerUnaryReactor* TrackerService::RequestSession(grpc::CallbackServerContext* context,
                                                         const v1::SessionRequest* request,
                                                         v1::SessionReply* reply) {
  const GrantCause cause{GrantPath::kFree, std::chrono::steady_clock::now()};
  grpc::Status refused = Authorize(*context);
  if (refused.ok() && request->key().empty()) {
    refused = grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "RequestSession needs a device key");
  }
  if (refused.ok() && request->queue_timeout_ms() <= 0) {
    refused = grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                           "RequestSession needs a positive queue_timeout_ms, got " +
                               std::to_string(request->queue_timeout_ms()));
  }
  if (!refused.ok()) {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(refused);
    return reactor;
  }
  PendingRequest pending;
  pending.request_id = request->request_id().empty() ? fleet::RandomHexId() : request->request_id();
  pending.key = request->key();
  pending.user = request->user();
  pending.priority = request->priority();
  pending.session_limit_ms = request->session_limit_ms();
  const std::string id = pending.request_id;
  auto* call = new QueuedCall(this, id, reply);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto answered = outcomes_.find(id);  // decided while its client was away (a retry)
    if (answered != outcomes_.end()) {
      ready_.emplace_back(call, Answer(answered->second, reply));
      outcomes_.erase(answered);
      outcome_times_.erase(id);
    } else if (stopping_) {
      ready_.emplace_back(call,
                          grpc::Status(grpc::StatusCode::UNAVAILABLE, "tracker shutting down"));
    } else {
      int64_t now = Now();
      pending.deadline_ms = now + request->queue_timeout_ms();
      bool known = state_.queue().count(id) != 0;
      state_.Enqueue(pending);
      if (writer_ && !known) {
        writer_->Add(StateChange::SaveRequest(state_.WithUnixDeadline(state_.queue().at(id))));
      }
      auto older = waiting_.find(id);  // the same request again: the newer call takes its place
      if (older != waiting_.end()) {
        ready_.emplace_back(older->second, grpc::Status(grpc::StatusCode::CANCELLED,
                                                        "superseded by a retry of the request"));
      }
      waiting_[id] = call;
      DispatchLocked(now, &cause);
    }
  }
  FinishReady();
  return call;
}

grpc::Status TrackerService::KeepSession(grpc::ServerContext* context,
                                         const v1::SessionRef* request, v1::Empty*) {
  if (grpc::Status auth = Authorize(*context); !auth.ok()) return auth;
  std::lock_guard<std::mutex> lock(mu_);
  std::string why = state_.KeepSession(request->session_id(), Now());
  if (why.empty()) return grpc::Status::OK;
  if (why.rfind("device lost", 0) == 0) return grpc::Status(grpc::StatusCode::ABORTED, why);
  return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "session ended: " + why);
}

grpc::ServerUnaryReactor* TrackerService::ReleaseSession(grpc::CallbackServerContext* context,
                                                         const v1::SessionRef* request,
                                                         v1::Empty*) {
  const GrantCause cause{GrantPath::kHandoff, std::chrono::steady_clock::now()};
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  grpc::Status auth = Authorize(*context);
  if (auth.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    int64_t now = Now();
    state_.ReleaseSession(request->session_id(), now);
    DispatchLocked(now, &cause);
  }
  // The next client hears of its grant before this one hears that its release went through.
  FinishReady();
  reactor->Finish(auth);
  return reactor;
}

bool TrackerService::Brokers(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [id, server] : state_.servers()) {
    if (server.key == key && !server.dead) return true;
  }
  return false;
}

RelayHooks TrackerService::relay_hooks() {
  RelayHooks hooks;
  hooks.authorize = [this](const grpc::ServerContextBase& context) { return Authorize(context); };
  hooks.server_of_session = [this](const std::string& session_id) {
    std::lock_guard<std::mutex> lock(mu_);
    return state_.ServerOfSession(session_id);
  };
  hooks.attachment_changed = [this](const std::string& server_id, bool attached) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      state_.SetRelayAttached(server_id, attached);
      if (attached) DispatchLocked(Now());
    }
    FinishReady();
  };
  return hooks;
}

grpc::Status TrackerService::Status(grpc::ServerContext* context, const v1::StatusRequest*,
                                    v1::FleetStatus* reply) {
  if (grpc::Status auth = Authorize(*context, Access::kRead); !auth.ok()) return auth;
  *reply = Snapshot();
  return grpc::Status::OK;
}

v1::FleetStatus TrackerService::Snapshot() {
  v1::FleetStatus status;
  {
    std::lock_guard<std::mutex> lock(mu_);
    status = state_.Status(Now());
  }
  timings_.AppendTo(&status);
  // What a client sees queued survives a crash from now on.
  if (writer_) writer_->Flush();
  return status;
}

}  // namespace tracker
}  // namespace tessera
