/// \file
/// `DeviceService`: the device server's gRPC service. One session at a time, opened with a
/// grant the tracker signed; per-session sandbox directory, shared-memory arrays, and a worker
/// process that runs uploaded code under a time limit. Grant checks are in `session_guard.*`, the
/// raw array streams in `array_streams.*`.
#ifndef TESSERA_RPC_SERVER_DEVICE_SERVICE_H_
#define TESSERA_RPC_SERVER_DEVICE_SERVICE_H_

#include <sys/types.h>

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "common/clock.h"
#include "proto/device.grpc.pb.h"

namespace tessera {
namespace fleet {

/// Limits and identity of a device server.
struct DeviceOptions {
  std::string server_id;
  std::string key;
  std::string workdir;                               ///< sessions get subdirectories here
  std::string worker_executable = "/proc/self/exe";  ///< run with --worker-fd N
  uid_t worker_uid = static_cast<uid_t>(-1);         ///< the call worker's user; -1: the server's
  gid_t worker_gid = static_cast<gid_t>(-1);         ///< the call worker's group, with `worker_uid`
  int64_t max_upload_bytes = 256ll << 20;            ///< per uploaded file
  int64_t max_array_bytes = 4ll << 30;               ///< per array
  int64_t call_timeout_ms = 10000;  ///< a call or timing that takes longer is killed
  /// Grants' expiry is checked on its wall clock, a session's limit runs on its steady clock.
  std::shared_ptr<const Clock> clock = SystemClock();
};

struct Session;
class SessionGuard;
class SharedArray;

/// The device server's RPC service; thread-safe.
class DeviceService final
    : public device::v1::Device::WithRawCallbackMethod_CopyIn<
          device::v1::Device::WithRawCallbackMethod_CopyOut<device::v1::Device::Service>> {
 public:
  /// A service with `options`; grants are checked with `grant_key` (see `SetGrantKey`).
  explicit DeviceService(DeviceOptions options);
  /// Closes the open session.
  ~DeviceService() override;

  /// Sets the key grants are verified with (from the token, or handed out by the tracker).
  void SetGrantKey(const std::string& key);
  /// Closes session `session_id` if it is open (the tracker ended it).
  void EndSession(const std::string& session_id);
  /// The open session's id and its expiry in wall-clock milliseconds ("" and 0 when none).
  std::pair<std::string, int64_t> ActiveSession();

  /// Verifies the grant and opens its session (closing any older one).
  grpc::Status OpenSession(grpc::ServerContext* context,
                           const device::v1::OpenSessionRequest* request,
                           device::v1::SessionRef* reply) override;
  /// Ends the session: kills its worker, frees its arrays, removes its directory.
  grpc::Status CloseSession(grpc::ServerContext* context, const device::v1::SessionRef* request,
                            device::v1::Empty* reply) override;
  /// Receives a file into the sandbox (size-limited, confined names).
  grpc::Status Upload(grpc::ServerContext* context,
                      grpc::ServerReader<device::v1::UploadChunk>* reader,
                      device::v1::UploadReply* reply) override;
  /// Loads an uploaded shared library in the worker.
  grpc::Status LoadModule(grpc::ServerContext* context,
                          const device::v1::LoadModuleRequest* request,
                          device::v1::LoadModuleReply* reply) override;
  /// Allocates a zeroed array.
  grpc::Status AllocArray(grpc::ServerContext* context,
                          const device::v1::AllocArrayRequest* request,
                          device::v1::AllocArrayReply* reply) override;
  /// Frees an array.
  grpc::Status FreeArray(grpc::ServerContext* context, const device::v1::ArrayRef* request,
                         device::v1::Empty* reply) override;
  /// Receives an array's bytes in chunks straight into its memory (a `CopyReply` goes out raw).
  grpc::ServerReadReactor<grpc::ByteBuffer>* CopyIn(grpc::CallbackServerContext* context,
                                                    grpc::ByteBuffer* response) override;
  /// Sends an array's bytes in chunks straight from its memory (an `ArrayRef` comes in raw).
  grpc::ServerWriteReactor<grpc::ByteBuffer>* CopyOut(grpc::CallbackServerContext* context,
                                                      const grpc::ByteBuffer* request) override;
  /// Calls a function in the worker.
  grpc::Status Call(grpc::ServerContext* context, const device::v1::CallRequest* request,
                    device::v1::Empty* reply) override;
  /// Times a function in the worker with the runtime's time evaluator.
  grpc::Status Time(grpc::ServerContext* context, const device::v1::TimeRequest* request,
                    device::v1::TimeReply* reply) override;
  /// Loads an uploaded model artifact in the worker (which checks that it runs on this device)
  /// and describes its inputs and outputs.
  grpc::Status LoadModel(grpc::ServerContext* context, const device::v1::LoadModelRequest* request,
                         device::v1::LoadModelReply* reply) override;
  /// Runs a loaded model on the session's arrays in the worker, then times `repeat` more runs.
  grpc::Status RunModel(grpc::ServerContext* context, const device::v1::RunModelRequest* request,
                        device::v1::RunModelReply* reply) override;

 private:
  std::shared_ptr<SharedArray> ArrayOfSession(const std::string& session_id, int64_t array_id,
                                              grpc::Status* status);
  std::shared_ptr<Session> Find(const std::string& session_id, grpc::Status* status);
  grpc::Status RunInWorker(Session& session, const device::v1::WorkerRequest& request,
                           const std::string& what, device::v1::WorkerReply* reply);
  void EnsureWorker(Session& session);
  grpc::Status LoadUpload(const std::string& session_id, const std::string& name, bool model,
                          int64_t* id, device::v1::WorkerReply* reply);
  std::shared_ptr<SharedArray> FindArray(Session& session, int64_t id, grpc::Status* status);

  DeviceOptions options_;
  std::mutex mu_;
  std::condition_variable grant_key_set_;  ///< notified when the grant key is set
  std::unique_ptr<SessionGuard> guard_;    ///< which grants open a session
  std::shared_ptr<Session> session_;
};

}  // namespace fleet
}  // namespace tessera

#endif  // TESSERA_RPC_SERVER_DEVICE_SERVICE_H_
