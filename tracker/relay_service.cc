#include "tracker/relay_service.h"

#include <deque>
#include <utility>
#include <vector>

#include "common/log.h"

namespace tessera {
namespace tracker {

using relay::v1::RelayFrame;

namespace {

grpc::ByteBuffer ToBuffer(const std::string& bytes) {
  grpc::Slice slice(bytes.data(), bytes.size());
  return grpc::ByteBuffer(&slice, 1);
}

std::string FromBuffer(const grpc::ByteBuffer& buffer) {
  grpc::Slice slice;
  if (!buffer.DumpToSingleSlice(&slice).ok()) return "";
  return std::string(reinterpret_cast<const char*>(slice.begin()), slice.size());
}

}  // namespace

// A client's device call, forwarded over its server's link. Messages toward the server go one at
// a time (the next is read from the client once the last is on the link), and the link reads
// the next frame from the server once a message toward the client is written: both directions
// hold at most one message each in the tracker.
class RelayedCall final : public grpc::ServerGenericBidiReactor,
                          public std::enable_shared_from_this<RelayedCall> {
 public:
  void Begin(grpc::GenericCallbackServerContext* context, RelayService* service);
  // A frame from the server for this call; `next` runs once the tracker may read another.
  void FromServer(RelayFrame frame, std::function<void()> next);
  // The link went down.
  void Fail(const grpc::Status& status);

  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  void FinishLocked(const grpc::Status& status);

  std::shared_ptr<RelayedCall> self_;  ///< kept until gRPC is done with the call
  std::shared_ptr<RelayLink> link_;
  uint64_t id_ = 0;
  grpc::ByteBuffer in_;
  std::recursive_mutex mu_;  ///< recursive: a reaction may run inline from the operation
  std::deque<std::pair<grpc::ByteBuffer, std::function<void()>>> out_;
  bool writing_ = false;
  bool finished_ = false;
  bool finish_pending_ = false;
  grpc::Status final_;
};

// One attached server's stream.
class RelayLink final : public grpc::ServerBidiReactor<RelayFrame, RelayFrame>,
                        public std::enable_shared_from_this<RelayLink> {
 public:
  explicit RelayLink(RelayService* service) : service_(service) {}
  void Begin(const grpc::Status& admitted);
  // Sends `frame`; `sent` runs once it is written (never when the link went down first).
  void Send(RelayFrame frame, std::function<void()> sent);
  // A new call's id, or 0 when the link is down.
  uint64_t AddCall(std::shared_ptr<RelayedCall> call);
  void RemoveCall(uint64_t id);
  void Down(const std::string& why);
  const std::string& server_id() const { return server_id_; }

  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override;
  void OnCancel() override { Down("the tracker is shutting down or the stream was cancelled"); }
  void OnDone() override;

 private:
  void ReadNext();

  RelayService* service_;
  std::shared_ptr<RelayLink> self_;
  std::string server_id_;
  RelayFrame incoming_;
  std::recursive_mutex mu_;  ///< recursive: a reaction may run inline from the operation
  bool hello_ = false;
  bool down_ = false;
  bool writing_ = false;
  bool finished_ = false;
  std::deque<std::pair<RelayFrame, std::function<void()>>> out_;
  std::map<uint64_t, std::shared_ptr<RelayedCall>> calls_;
  uint64_t next_call_ = 1;
};

void RelayLink::Begin(const grpc::Status& admitted) {
  self_ = shared_from_this();
  if (!admitted.ok()) {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    down_ = finished_ = true;
    Finish(admitted);
    return;
  }
  StartRead(&incoming_);
}

void RelayLink::ReadNext() {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (!down_) StartRead(&incoming_);
}

void RelayLink::OnReadDone(bool ok) {
  if (!ok) {
    Down("its stream ended");
    return;
  }
  if (!hello_) {
    if (incoming_.kind() != RelayFrame::HELLO || incoming_.server_id().empty()) {
      Down("its first frame was not a HELLO with a server id");
      return;
    }
    hello_ = true;
    server_id_ = incoming_.server_id();
    service_->Adopt(shared_from_this());
    TESSERA_LOG(kInfo) << "relay attached server=" << server_id_;
    RelayFrame welcome;  // tells the server it is attached
    welcome.set_kind(RelayFrame::HELLO);
    welcome.set_server_id(server_id_);
    Send(std::move(welcome), nullptr);
    ReadNext();
    return;
  }
  std::shared_ptr<RelayedCall> call;
  {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    auto it = calls_.find(incoming_.call_id());
    if (it != calls_.end()) call = it->second;
  }
  if (!call ||
      (incoming_.kind() != RelayFrame::MESSAGE && incoming_.kind() != RelayFrame::FINISH)) {
    ReadNext();  // a call that already ended, or a frame the server should not send
    return;
  }
  std::shared_ptr<RelayLink> self = shared_from_this();
  call->FromServer(std::move(incoming_), [self] { self->ReadNext(); });
}

void RelayLink::Send(RelayFrame frame, std::function<void()> sent) {
  RelayFrame* start = nullptr;
  {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    if (down_) return;
    out_.emplace_back(std::move(frame), std::move(sent));
    if (!writing_) {
      writing_ = true;
      start = &out_.front().first;
    }
  }
  if (start != nullptr) StartWrite(start);
}

void RelayLink::OnWriteDone(bool ok) {
  std::shared_ptr<RelayLink> keep = shared_from_this();
  std::function<void()> sent;
  RelayFrame* next = nullptr;
  std::deque<std::pair<RelayFrame, std::function<void()>>> unsent;  // dropped after unlocking
  {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    if (!out_.empty()) {
      sent = std::move(out_.front().second);
      out_.pop_front();
    }
    if (ok && !down_ && !out_.empty()) {
      next = &out_.front().first;
    } else {
      writing_ = false;
      if (down_) unsent.swap(out_);
      if (down_ && !finished_) {
        finished_ = true;
        Finish(grpc::Status::OK);
      }
    }
  }
  if (!ok) {
    Down("a write to it failed");
    return;
  }
  if (sent) sent();
  if (next != nullptr) StartWrite(next);
}

uint64_t RelayLink::AddCall(std::shared_ptr<RelayedCall> call) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (down_) return 0;
  uint64_t id = next_call_++;
  calls_[id] = std::move(call);
  return id;
}

void RelayLink::RemoveCall(uint64_t id) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  calls_.erase(id);
}

void RelayLink::Down(const std::string& why) {
  std::shared_ptr<RelayLink> keep = shared_from_this();  // OnDone may drop the last other owner
  std::map<uint64_t, std::shared_ptr<RelayedCall>> calls;
  std::deque<std::pair<RelayFrame, std::function<void()>>> unsent;
  {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    if (down_) return;
    down_ = true;
    calls.swap(calls_);
    if (!writing_) unsent.swap(out_);
    if (!writing_ && !finished_) {
      finished_ = true;
      Finish(grpc::Status::OK);
    }
  }
  service_->Forget(this);
  if (!server_id_.empty()) {
    TESSERA_LOG(kWarning) << "relay detached server=" << server_id_ << ": " << why;
  }
  const grpc::Status lost(grpc::StatusCode::UNAVAILABLE,
                          "device lost: server '" + server_id_ +
                              "' is no longer connected to the tracker's relay (" + why + ")");
  for (auto& [id, call] : calls) call->Fail(lost);
}

void RelayLink::OnDone() {
  Down("its stream ended");
  std::shared_ptr<RelayLink> last;  // released after unlocking: it may be the last owner
  {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    last.swap(self_);
  }
}

void RelayedCall::Begin(grpc::GenericCallbackServerContext* context, RelayService* service) {
  self_ = shared_from_this();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  const auto& metadata = context->client_metadata();
  auto session = metadata.find("x-tessera-session");
  const std::string session_id =
      session == metadata.end() ? "" : std::string(session->second.data(), session->second.size());
  if (context->method().rfind("/tessera.device.v1.Device/", 0) != 0) {
    FinishLocked(grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                              "the tracker relays device calls only, not " + context->method()));
    return;
  }
  const std::string server_id =
      session_id.empty() ? "" : service->hooks().server_of_session(session_id);
  if (server_id.empty()) {
    FinishLocked(grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                              "relay refused: no open session '" + session_id +
                                  "' (not granted by this tracker, or already ended)"));
    return;
  }
  link_ = service->LinkOf(server_id);
  id_ = link_ ? link_->AddCall(shared_from_this()) : 0;
  if (id_ == 0) {
    FinishLocked(grpc::Status(grpc::StatusCode::UNAVAILABLE,
                              "device lost: server '" + server_id + "' of session '" + session_id +
                                  "' is not connected to the tracker's relay"));
    return;
  }
  RelayFrame start;
  start.set_kind(RelayFrame::START);
  start.set_call_id(id_);
  start.set_method(context->method());
  link_->Send(std::move(start), nullptr);
  StartRead(&in_);
}

void RelayedCall::OnReadDone(bool ok) {
  RelayFrame frame;
  frame.set_call_id(id_);
  if (!ok) {
    frame.set_kind(RelayFrame::HALF_CLOSE);
    link_->Send(std::move(frame), nullptr);
    return;
  }
  frame.set_kind(RelayFrame::MESSAGE);
  frame.set_payload(FromBuffer(in_));
  std::shared_ptr<RelayedCall> self = shared_from_this();
  link_->Send(std::move(frame), [self] {
    std::lock_guard<std::recursive_mutex> lock(self->mu_);
    if (!self->finished_) self->StartRead(&self->in_);
  });
}

void RelayedCall::FromServer(RelayFrame frame, std::function<void()> next) {
  {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    if (!finished_ && !finish_pending_) {
      if (frame.kind() == RelayFrame::MESSAGE) {
        out_.emplace_back(ToBuffer(frame.payload()), std::move(next));
        if (!writing_) {
          writing_ = true;
          StartWrite(&out_.front().first);
        }
        return;
      }
      FinishLocked(grpc::Status(static_cast<grpc::StatusCode>(frame.status_code()),
                                frame.status_message(), frame.status_details()));
    }
  }
  next();
}

void RelayedCall::OnWriteDone(bool ok) {
  std::shared_ptr<RelayedCall> keep = shared_from_this();  // Finish may run OnDone inline
  std::function<void()> next;
  {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    next = std::move(out_.front().second);
    out_.pop_front();
    if (ok && !out_.empty()) {
      StartWrite(&out_.front().first);
    } else {
      writing_ = false;
      if (finish_pending_) {
        finish_pending_ = false;
        finished_ = true;
        Finish(final_);
      }
    }
  }
  if (next) next();  // also after a failed write: the link must go on for other calls
}

void RelayedCall::Fail(const grpc::Status& status) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  FinishLocked(status);
}

void RelayedCall::FinishLocked(const grpc::Status& status) {
  if (finished_ || finish_pending_) return;
  if (writing_) {  // the message being written goes first
    final_ = status;
    finish_pending_ = true;
    return;
  }
  finished_ = true;
  Finish(status);
}

void RelayedCall::OnCancel() {
  if (id_ == 0) return;
  RelayFrame cancel;
  cancel.set_kind(RelayFrame::CANCEL);
  cancel.set_call_id(id_);
  link_->Send(std::move(cancel), nullptr);
}

void RelayedCall::OnDone() {
  if (link_) link_->RemoveCall(id_);
  std::vector<std::function<void()>> pending;
  {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    for (auto& [buffer, next] : out_) pending.push_back(std::move(next));
    out_.clear();
  }
  for (auto& next : pending) {
    if (next) next();
  }
  self_.reset();
}

namespace {

class DeviceRelay final : public grpc::CallbackGenericService {
 public:
  explicit DeviceRelay(RelayService* service) : service_(service) {}
  grpc::ServerGenericBidiReactor* CreateReactor(
      grpc::GenericCallbackServerContext* context) override {
    auto call = std::make_shared<RelayedCall>();
    call->Begin(context, service_);
    return call.get();
  }

 private:
  RelayService* service_;
};

}  // namespace

RelayService::RelayService(RelayHooks hooks)
    : hooks_(std::move(hooks)), device_relay_(std::make_unique<DeviceRelay>(this)) {}

RelayService::~RelayService() {
  std::map<std::string, std::shared_ptr<RelayLink>> links;
  {
    std::lock_guard<std::mutex> lock(mu_);
    links.swap(links_);
  }
  for (auto& [id, link] : links) link->Down("the tracker is shutting down");
}

grpc::ServerBidiReactor<RelayFrame, RelayFrame>* RelayService::Attach(
    grpc::CallbackServerContext* context) {
  auto link = std::make_shared<RelayLink>(this);
  link->Begin(hooks_.authorize(*context));
  return link.get();
}

bool RelayService::Attached(const std::string& server_id) { return LinkOf(server_id) != nullptr; }

std::shared_ptr<RelayLink> RelayService::LinkOf(const std::string& server_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = links_.find(server_id);
  return it == links_.end() ? nullptr : it->second;
}

void RelayService::Adopt(const std::shared_ptr<RelayLink>& link) {
  std::shared_ptr<RelayLink> older;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::shared_ptr<RelayLink>& slot = links_[link->server_id()];
    older = slot;
    slot = link;
  }
  if (older && older != link) older->Down("replaced by a newer stream of the same server");
}

void RelayService::Forget(const RelayLink* link) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = links_.find(link->server_id());
  if (it != links_.end() && it->second.get() == link) links_.erase(it);
}

}  // namespace tracker
}  // namespace tessera
