#include "fleet/client/tracker_client.h"

#include <algorithm>
#include <chrono>

#include "fleet/client/channel.h"
#include "fleet/client/retry.h"
#include "fleet/secrets.h"

namespace tessera {
namespace fleet {

TrackerOptions TrackerOptionsFor(const std::string& address, const std::string& token_file,
                                 const std::string& tls_ca_file) {
  TrackerOptions options;
  options.address = address;
  options.tls_ca_file = tls_ca_file;
  if (!token_file.empty()) options.token = ReadTokenFile(token_file);
  return options;
}

TrackerClient::TrackerClient(TrackerOptions options)
    : options_(std::move(options)),
      channel_(MakeChannel(options_.address, options_.tls_ca_file)),
      stub_(tracker::v1::Tracker::NewStub(channel_)) {}

void TrackerClient::Prepare(grpc::ClientContext* context, int64_t timeout_ms) const {
  PrepareTrackerCall(context, options_.token, timeout_ms);
}

template <typename Call>
void TrackerClient::CallWithRetry(const char* what, int64_t window_ms, Call call) {
  fleet::CallWithRetry(std::string("tracker ") + options_.address + " (" + what + ")", window_ms,
                       call);
}

tracker::v1::SessionReply TrackerClient::RequestSession(const SessionOptions& options) {
  if (options.key.empty()) {
    throw FleetError(FleetErrorCode::kInvalidArgument, "RequestSession: empty device key");
  }
  tracker::v1::SessionRequest request;
  // The id stays the same across retries so a restarted tracker keeps the request's place.
  request.set_request_id(RandomHexId());
  request.set_key(options.key);
  request.set_priority(options.priority);
  request.set_user(options.user);
  request.set_queue_timeout_ms(options.queue_timeout_ms);
  request.set_session_limit_ms(options.session_limit_ms);
  const int64_t deadline = SteadyMillis() + options.queue_timeout_ms;
  tracker::v1::SessionReply reply;
  CallWithRetry("RequestSession", std::max(options_.retry_window_ms, options.queue_timeout_ms),
                [&] {
                  grpc::ClientContext context;
                  // The tracker answers at the queue deadline; the margin covers a slow network.
                  Prepare(&context, std::max<int64_t>(deadline - SteadyMillis(), 0) + 5000);
                  return stub_->RequestSession(&context, request, &reply);
                });
  return reply;
}

void TrackerClient::KeepSession(const std::string& session_id) {
  tracker::v1::SessionRef ref;
  ref.set_session_id(session_id);
  tracker::v1::Empty reply;
  CallWithRetry("KeepSession", options_.retry_window_ms, [&] {
    grpc::ClientContext context;
    Prepare(&context, options_.rpc_timeout_ms);
    return stub_->KeepSession(&context, ref, &reply);
  });
}

void TrackerClient::ReleaseSession(const std::string& session_id) {
  tracker::v1::SessionRef ref;
  ref.set_session_id(session_id);
  tracker::v1::Empty reply;
  CallWithRetry("ReleaseSession", options_.retry_window_ms, [&] {
    grpc::ClientContext context;
    Prepare(&context, options_.rpc_timeout_ms);
    return stub_->ReleaseSession(&context, ref, &reply);
  });
}

tracker::v1::FleetStatus TrackerClient::Status() {
  tracker::v1::StatusRequest request;
  tracker::v1::FleetStatus reply;
  CallWithRetry("Status", options_.retry_window_ms, [&] {
    grpc::ClientContext context;
    Prepare(&context, options_.rpc_timeout_ms);
    return stub_->Status(&context, request, &reply);
  });
  return reply;
}

}  // namespace fleet
}  // namespace tessera
