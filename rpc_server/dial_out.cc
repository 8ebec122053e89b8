#include "rpc_server/dial_out.h"

#include <chrono>
#include <deque>
#include <utility>

#include "common/log.h"
#include "fleet/client/backoff.h"
#include "fleet/client/channel.h"
#include "fleet/secrets.h"

namespace tessera {
namespace fleet {

using relay::v1::RelayFrame;

// One forwarded call, played against the device service. The relay's reader and gRPC share it;
// the hold keeps gRPC from ending it while the reader may still start operations on it, and no
// operation starts under a lock that a reaction takes unless that lock is recursive (gRPC may run
// a reaction inline from the operation that started it).
class ForwardedCall final : public grpc::ClientBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>,
                            public std::enable_shared_from_this<ForwardedCall> {
 public:
  ForwardedCall(DialOut* owner, uint64_t generation, uint64_t id)
      : owner_(owner), generation_(generation), id_(id) {}

  void Start(grpc::GenericStub* device, const std::string& method) {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    self_ = shared_from_this();
    device->PrepareBidiStreamingCall(&context_, method, grpc::StubOptions(), this);
    AddHold();
    StartRead(&in_);
    StartCall();
  }
  // A frame from the relay for this call.
  void Deliver(const RelayFrame& frame) {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    if (closed_) return;
    switch (frame.kind()) {
      case RelayFrame::MESSAGE: {
        grpc::Slice slice(frame.payload().data(), frame.payload().size());
        out_.emplace_back(&slice, 1);
        if (!writing_) {
          writing_ = true;
          StartWrite(&out_.front());
        }
        break;
      }
      case RelayFrame::HALF_CLOSE:
        half_closed_ = true;
        if (!writing_) StartWritesDone();
        break;
      case RelayFrame::CANCEL:
        context_.TryCancel();
        break;
      default:
        break;
    }
  }
  // The relay stream is gone.
  void Cancel() {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    if (!closed_) context_.TryCancel();
  }

  void OnWriteDone(bool ok) override {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    out_.pop_front();
    if (ok && !out_.empty()) {
      StartWrite(&out_.front());
      return;
    }
    writing_ = false;
    if (ok && half_closed_) StartWritesDone();
  }
  void OnReadDone(bool ok) override {
    if (!ok) {  // the device service finished: the reader starts nothing on this call any more
      {
        std::lock_guard<std::recursive_mutex> lock(mu_);
        closed_ = true;
      }
      owner_->Forget(generation_, id_);
      RemoveHold();
      return;
    }
    RelayFrame frame;
    frame.set_kind(RelayFrame::MESSAGE);
    frame.set_call_id(id_);
    grpc::Slice slice;
    if (in_.DumpToSingleSlice(&slice).ok()) {
      frame.set_payload(reinterpret_cast<const char*>(slice.begin()), slice.size());
    }
    owner_->Send(generation_, frame);  // blocks while the relay stream is full
    StartRead(&in_);
  }
  void OnDone(const grpc::Status& status) override {
    RelayFrame frame;
    frame.set_kind(RelayFrame::FINISH);
    frame.set_call_id(id_);
    frame.set_status_code(status.error_code());
    frame.set_status_message(status.error_message());
    frame.set_status_details(status.error_details());
    owner_->Send(generation_, frame);
    std::shared_ptr<ForwardedCall> last;  // released after unlocking: it may be the last owner
    {
      std::lock_guard<std::recursive_mutex> lock(mu_);
      last.swap(self_);
    }
  }

 private:
  DialOut* owner_;
  const uint64_t generation_;
  const uint64_t id_;
  std::shared_ptr<ForwardedCall> self_;  ///< kept until gRPC is done with the call
  grpc::ClientContext context_;
  grpc::ByteBuffer in_;
  std::recursive_mutex mu_;
  std::deque<grpc::ByteBuffer> out_;
  bool writing_ = false;
  bool half_closed_ = false;
  bool closed_ = false;
};

DialOut::DialOut(DialOutOptions options, std::shared_ptr<grpc::Channel> device)
    : options_(std::move(options)),
      relay_(relay::v1::Relay::NewStub(MakeChannel(options_.tracker, options_.tls_ca_file))),
      device_(std::move(device)) {
  thread_ = std::thread([this] { Loop(); });
}

DialOut::~DialOut() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    if (context_ != nullptr) context_->TryCancel();
  }
  wake_.notify_all();
  thread_.join();
}

bool DialOut::WaitAttached(int64_t timeout_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  return wake_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [this] {
    return attached_ || stopping_;
  }) && attached_;
}

void DialOut::Sleep(int64_t ms) {
  std::unique_lock<std::mutex> lock(mu_);
  wake_.wait_for(lock, std::chrono::milliseconds(ms), [this] { return stopping_; });
}

void DialOut::Send(uint64_t generation, const RelayFrame& frame) {
  std::lock_guard<std::mutex> lock(write_mu_);
  if (stream_ != nullptr && stream_generation_ == generation) stream_->Write(frame);
}

void DialOut::Forget(uint64_t generation, uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (generation == generation_) calls_.erase(id);
}

void DialOut::Handle(uint64_t generation, const RelayFrame& frame) {
  std::shared_ptr<ForwardedCall> call;
  bool start = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = calls_.find(frame.call_id());
    if (frame.kind() == RelayFrame::START && it == calls_.end()) {
      call = std::make_shared<ForwardedCall>(this, generation, frame.call_id());
      calls_[frame.call_id()] = call;
      start = true;
    } else if (it != calls_.end()) {
      call = it->second;
    }
  }
  if (start) {
    call->Start(&device_, frame.method());
  } else if (call) {
    call->Deliver(frame);
  }
}

void DialOut::Loop() {
  Backoff backoff(/*first_ms=*/100, options_.max_backoff_ms);
  while (true) {
    grpc::ClientContext context;
    if (!options_.token.empty()) context.AddMetadata(fleet::kTokenHeader, options_.token);
    uint64_t generation;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
      context_ = &context;
      generation = ++generation_;
    }
    auto stream = relay_->Attach(&context);
    {
      std::lock_guard<std::mutex> lock(write_mu_);
      stream_ = stream.get();
      stream_generation_ = generation;
    }
    RelayFrame hello;
    hello.set_kind(RelayFrame::HELLO);
    hello.set_server_id(options_.server_id);
    bool hello_sent;
    {
      std::lock_guard<std::mutex> lock(write_mu_);
      hello_sent = stream->Write(hello);
    }
    RelayFrame frame;
    if (hello_sent && stream->Read(&frame) && frame.kind() == RelayFrame::HELLO) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        attached_ = true;
      }
      wake_.notify_all();
      backoff.Reset();
      TESSERA_LOG(kInfo) << "attached to the relay of tracker=" << options_.tracker
                         << " server=" << options_.server_id;
      while (stream->Read(&frame)) Handle(generation, frame);
    }
    attached_ = false;
    std::map<uint64_t, std::shared_ptr<ForwardedCall>> calls;
    {
      std::lock_guard<std::mutex> lock(mu_);
      context_ = nullptr;
      calls.swap(calls_);
      context.TryCancel();
    }
    for (auto& [id, call] : calls) call->Cancel();
    {
      std::lock_guard<std::mutex> lock(write_mu_);
      stream_ = nullptr;
    }
    grpc::Status status = stream->Finish();
    TESSERA_LOG(kWarning) << "relay stream to tracker=" << options_.tracker
                          << " server=" << options_.server_id
                          << " closed: " << status.error_message() << " (attaching again)";
    Sleep(backoff.Next());
  }
}

}  // namespace fleet
}  // namespace tessera
