/// \file
/// `RemoteSession`: a session on a device server, obtained through the tracker: upload files,
/// load modules and model artifacts, move arrays, call and time functions and models, then
/// release. A keepalive thread renews the session with the tracker; when the tracker reports the
/// device lost, calls in flight are cancelled and every call fails fast with
/// `FleetErrorCode::kDeviceLost`.
#ifndef TESSERA_FLEET_CLIENT_REMOTE_SESSION_H_
#define TESSERA_FLEET_CLIENT_REMOTE_SESSION_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "fleet/client/tracker_client.h"
#include "proto/device.grpc.pb.h"

namespace tessera {
namespace fleet {

/// One argument of a remote call.
struct RemoteArg {
  /// An array of the session (from `AllocArray`).
  static RemoteArg Array(int64_t id);
  /// An integer.
  static RemoteArg Int(int64_t value);
  /// A float.
  static RemoteArg Float(double value);
  device::v1::Arg proto;  ///< the wire form
};

/// True when a grant's server address ("relay:SERVER_ID") says the server dialed out to its
/// tracker (`tessera-rpc-server --dial-out`): the session goes through the tracker's relay.
bool IsRelayAddress(const std::string& address);

/// An open session; thread-safe; closes itself on destruction.
class RemoteSession {
 public:
  /// Asks `tracker` for a session per `options`, then opens it on the granted server. Throws
  /// `FleetError` (kQueueTimeout, kDeviceLost when the server is unreachable, ...).
  static std::unique_ptr<RemoteSession> Open(std::shared_ptr<TrackerClient> tracker,
                                             const SessionOptions& options);
  /// Opens a session with an already obtained grant (no keepalive when `tracker` is null).
  /// With the tracker's `server_proof_key`, a server that cannot prove it is the granted one
  /// is refused (kDeviceLost) before anything is sent to it.
  RemoteSession(std::shared_ptr<TrackerClient> tracker, tracker::v1::Grant grant,
                int64_t keepalive_ms, const std::string& server_proof_key = "");
  /// Closes the session (errors are ignored).
  ~RemoteSession();
  RemoteSession(const RemoteSession&) = delete;
  RemoteSession& operator=(const RemoteSession&) = delete;

  /// Uploads `bytes` as the file `name` in the session's sandbox.
  void Upload(const std::string& name, const std::string& bytes);
  /// Uploads the local file `path` as `name`.
  void UploadFile(const std::string& name, const std::string& path);
  /// Loads an uploaded shared library; returns its module id.
  int64_t LoadModule(const std::string& name);
  /// Allocates a zeroed array; returns its id.
  int64_t AllocArray(const std::vector<int64_t>& shape, const std::string& dtype);
  /// Frees an array.
  void FreeArray(int64_t array);
  /// Copies `nbytes` (the array's size) from `data` into the array; large arrays go over
  /// several streams in parallel. Throws kInvalidArgument for a size mismatch.
  void CopyIn(int64_t array, const void* data, size_t nbytes);
  /// Copies the array's bytes into `data` (which holds `nbytes`, the array's size).
  void CopyOut(int64_t array, void* data, size_t nbytes);
  /// Calls `function` of `module`.
  void Call(int64_t module, const std::string& function, const std::vector<RemoteArg>& args);
  /// Times `function` with the runtime's time evaluator; mean seconds per call of each repeat.
  /// The arguments at `evict_args` leave the device's CPU caches before every call.
  std::vector<double> Time(int64_t module, const std::string& function,
                           const std::vector<RemoteArg>& args, int number, int repeat,
                           int min_repeat_ms = 0, const std::vector<int>& evict_args = {});
  /// Loads an uploaded model artifact (`deploy/artifact.h`) on the device, which checks that it
  /// runs there (a refusal is kCallFailed with the device's message); returns its id, target
  /// and signature.
  device::v1::LoadModelReply LoadModel(const std::string& name);
  /// Runs a loaded model: `request`'s inputs and outputs name session arrays (its session id is
  /// filled in here); returns the device-side first-run and timed-run seconds.
  device::v1::RunModelReply RunModel(device::v1::RunModelRequest request);
  /// Closes the session on the server and releases it at the tracker.
  void Close();
  /// The grant this session was opened with.
  const tracker::v1::Grant& grant() const { return grant_; }
  /// Whether the connection the server proved itself on is still up (once it dropped, every
  /// call fails with kDeviceLost); a test waits for it to drop.
  bool connection_up() const;
  /// Renewals the tracker accepted so far; a test waits for one to see the keepalive go on.
  int keepalives() const { return keepalives_; }

 private:
  class Scope;
  void Check(const grpc::Status& status, const char* what);
  void KeepaliveLoop(int64_t keepalive_ms);
  void CheckArraySize(int64_t array, size_t nbytes);
  void AddSessionMetadata(grpc::ClientContext* context) const;
  template <typename CopyRange>
  void InParallel(size_t nbytes, CopyRange copy);

  std::shared_ptr<TrackerClient> tracker_;
  tracker::v1::Grant grant_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<device::v1::Device::Stub> stub_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::set<grpc::ClientContext*> in_flight_;
  std::map<int64_t, size_t> array_bytes_;  ///< sizes of the arrays this client allocated
  std::string lost_;  ///< why the session is over (device lost or ended), once it is
  FleetErrorCode lost_code_ = FleetErrorCode::kDeviceLost;
  bool closed_ = false;
  bool opened_ = false;  ///< the server proved itself on the channel's current connection
  std::atomic<int> keepalives_{0};
  std::thread keepalive_;
};

}  // namespace fleet
}  // namespace tessera

#endif  // TESSERA_FLEET_CLIENT_REMOTE_SESSION_H_
