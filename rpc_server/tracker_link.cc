#include "rpc_server/tracker_link.h"

#include <algorithm>
#include <chrono>
#include "common/log.h"
#include "fleet/client/backoff.h"
#include "fleet/client/channel.h"
#include "fleet/client/fleet_error.h"
#include "fleet/secrets.h"

namespace tessera {
namespace fleet {
namespace {

void Prepare(grpc::ClientContext* context, const std::string& token, int64_t timeout_ms) {
  if (!token.empty()) context->AddMetadata(fleet::kTokenHeader, token);
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms));
}

}  // namespace

TrackerLink::TrackerLink(TrackerLinkOptions options, LinkCallbacks callbacks)
    : options_(std::move(options)),
      callbacks_(std::move(callbacks)),
      stub_(tracker::v1::Tracker::NewStub(MakeChannel(options_.tracker, options_.tls_ca_file))) {
  thread_ = std::thread([this] { Loop(); });
}

TrackerLink::~TrackerLink() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void TrackerLink::Sleep(int64_t ms) {
  std::unique_lock<std::mutex> lock(mu_);
  wake_.wait_for(lock, std::chrono::milliseconds(ms), [this] { return stopping_; });
}

bool TrackerLink::RegisterOnce() {
  tracker::v1::RegisterRequest request;
  request.set_server_id(options_.server_id);
  request.set_key(options_.key);
  request.set_address(options_.address);
  *request.mutable_info() = options_.info;
  if (callbacks_.active_session) {
    auto [session, expires] = callbacks_.active_session();
    request.set_active_session_id(session);
    request.set_active_session_expires_unix_ms(expires);
  }
  tracker::v1::RegisterReply reply;
  grpc::ClientContext context;
  Prepare(&context, options_.token, 5000);
  grpc::Status status = stub_->Register(&context, request, &reply);
  if (!status.ok()) {
    if (status.error_code() != grpc::StatusCode::UNAVAILABLE) {
      ++refusals_;
      TESSERA_LOG(kError) << "registration refused tracker=" << options_.tracker
                          << " key=" << options_.key << " server=" << options_.server_id << ": "
                          << status.error_message();
    }
    return false;
  }
  heartbeat_ms_ = std::max<int64_t>(reply.heartbeat_ms(), 10);
  if (callbacks_.registered) callbacks_.registered(reply.grant_key());
  ++registrations_;
  TESSERA_LOG(kInfo) << "registered tracker=" << options_.tracker << " key=" << options_.key
                     << " server=" << options_.server_id << " address=" << options_.address;
  return true;
}

void TrackerLink::Loop() {
  Backoff backoff(/*first_ms=*/50, options_.max_backoff_ms);
  bool registered = false;
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
    }
    if (!registered) {
      registered = RegisterOnce();
      connected_ = registered;
      if (!registered) {
        Sleep(backoff.Next());
        continue;
      }
      backoff.Reset();
    }
    Sleep(heartbeat_ms_);
    tracker::v1::HeartbeatRequest request;
    request.set_server_id(options_.server_id);
    if (callbacks_.active_session) request.set_active_session_id(callbacks_.active_session().first);
    tracker::v1::HeartbeatReply reply;
    grpc::ClientContext context;
    Prepare(&context, options_.token, std::max<int64_t>(heartbeat_ms_, 1000));
    grpc::Status status = stub_->Heartbeat(&context, request, &reply);
    if (!status.ok()) {
      // NOT_FOUND: a restarted tracker or one that declared us dead; anything else: it is away.
      TESSERA_LOG(kWarning) << "heartbeat failed tracker=" << options_.tracker
                            << " server=" << options_.server_id << ": " << status.error_message()
                            << " (registering again)";
      registered = false;
      connected_ = false;
      continue;
    }
    connected_ = true;
    for (const std::string& id : reply.ended_session_ids()) {
      if (callbacks_.session_ended) callbacks_.session_ended(id);
    }
  }
}

}  // namespace fleet
}  // namespace tessera
