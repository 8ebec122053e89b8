/// \file
/// `DialOut`: a device server behind NAT (`tessera-rpc-server --dial-out`). It listens on no
/// port; it keeps one stream open to its tracker's relay (proto/relay.proto), re-opened with
/// backoff when it drops, and plays each device call the tracker forwards over it against its
/// own `DeviceService` through an in-process channel, so grants, the server's proof, the sandbox
/// and every limit apply exactly as for a direct connection.
#ifndef TESSERA_RPC_SERVER_DIAL_OUT_H_
#define TESSERA_RPC_SERVER_DIAL_OUT_H_

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "proto/relay.grpc.pb.h"

namespace tessera {
namespace fleet {

/// Where the relay is and who attaches.
struct DialOutOptions {
  std::string tracker;            ///< HOST:PORT of the tracker
  std::string token;              ///< the fleet's shared secret; empty without one
  std::string tls_ca_file;        ///< PEM root certificate of a TLS tracker; empty for plaintext
  std::string server_id;          ///< the id this server registered with
  int64_t max_backoff_ms = 2000;  ///< longest wait between attempts to attach
};

class ForwardedCall;

/// Runs the relay stream on its own thread from construction to destruction.
class DialOut {
 public:
  /// Attaches to the relay and serves forwarded calls on `device` (an in-process channel to
  /// this server's device service).
  DialOut(DialOutOptions options, std::shared_ptr<grpc::Channel> device);
  /// Detaches and cancels the calls in flight.
  ~DialOut();
  DialOut(const DialOut&) = delete;
  DialOut& operator=(const DialOut&) = delete;

  /// True while the stream to the relay is up.
  bool attached() const { return attached_; }
  /// Waits up to `timeout_ms` for the stream to be up; true when it is.
  bool WaitAttached(int64_t timeout_ms);

  /// Private to the dial-out: sends `frame` on stream `generation` (dropped when that stream is
  /// gone); blocks while the stream's flow control says so.
  void Send(uint64_t generation, const relay::v1::RelayFrame& frame);
  /// Private to the dial-out: call `id` of stream `generation` will touch nothing any more.
  void Forget(uint64_t generation, uint64_t id);

 private:
  void Loop();
  void Handle(uint64_t generation, const relay::v1::RelayFrame& frame);
  void Sleep(int64_t ms);

  DialOutOptions options_;
  std::unique_ptr<relay::v1::Relay::Stub> relay_;
  grpc::GenericStub device_;
  std::atomic<bool> attached_{false};  ///< set under `mu_` (for `WaitAttached`)

  std::mutex mu_;  ///< guards what follows
  std::condition_variable wake_;
  bool stopping_ = false;
  grpc::ClientContext* context_ = nullptr;  ///< of the stream now open
  uint64_t generation_ = 0;                 ///< counts streams, so old calls never write to new
  std::map<uint64_t, std::shared_ptr<ForwardedCall>> calls_;  ///< by the relay's call id

  std::mutex write_mu_;  ///< one writer at a time on the stream
  grpc::ClientReaderWriter<relay::v1::RelayFrame, relay::v1::RelayFrame>* stream_ = nullptr;
  uint64_t stream_generation_ = 0;
  std::thread thread_;
};

}  // namespace fleet
}  // namespace tessera

#endif  // TESSERA_RPC_SERVER_DIAL_OUT_H_
