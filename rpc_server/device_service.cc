#include "rpc_server/device_service.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "common/log.h"
#include "fleet/client/fleet_error.h"
#include "fleet/secrets.h"
#include "proto/server_proof.h"
#include "rpc_server/array_streams.h"
#include "rpc_server/sandbox.h"
#include "rpc_server/session_guard.h"
#include "rpc_server/worker.h"
#include "runtime/data_type.h"
#include "runtime/error.h"

namespace tessera {
namespace fleet {

/// One open session. Operations hold `mu`, so a session's calls run one at a time.
struct Session {
  std::string id;
  int64_t deadline_ms = 0;  ///< on the steady clock, so a wall-clock jump does not move it
  std::unique_ptr<Sandbox> sandbox;
  std::mutex mu;
  std::map<int64_t, std::shared_ptr<SharedArray>> arrays;  ///< shared: copies run unlocked
  std::map<int64_t, std::string> modules;  ///< id -> path, replayed into a fresh worker
  std::map<int64_t, std::string> models;   ///< id -> artifact path, replayed likewise
  std::unique_ptr<WorkerProcess> worker;
  int64_t next_id = 1;
};

namespace {

grpc::Status SandboxStatus(const SandboxError& e) {
  bool refused = std::string(e.what()).rfind("refused", 0) == 0;
  return grpc::Status(refused ? grpc::StatusCode::PERMISSION_DENIED : grpc::StatusCode::NOT_FOUND,
                      e.what());
}

// Loading an uploaded file in a worker: a shared library (module) or a model artifact.
device::v1::WorkerRequest LoadRequest(bool model, int64_t id, const std::string& path) {
  device::v1::WorkerRequest request;
  device::v1::LoadInWorker* load = model ? request.mutable_load_model() : request.mutable_load();
  load->set_module_id(id);
  load->set_path(path);
  return request;
}

}  // namespace

DeviceService::DeviceService(DeviceOptions options)
    : options_(std::move(options)),
      guard_(std::make_unique<SessionGuard>(options_.key, options_.server_id)) {}

DeviceService::~DeviceService() {
  std::lock_guard<std::mutex> lock(mu_);
  session_.reset();
}

void DeviceService::SetGrantKey(const std::string& key) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    guard_->SetGrantKey(key);
  }
  grant_key_set_.notify_all();
}

void DeviceService::EndSession(const std::string& session_id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!session_ || session_->id != session_id) return;
  TESSERA_LOG(kInfo) << "session closed key=" << options_.key << " server=" << options_.server_id
                     << " session=" << session_id;
  session_.reset();
}

std::pair<std::string, int64_t> DeviceService::ActiveSession() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!session_) return {"", 0};
  const Clock& clock = *options_.clock;
  return {session_->id, session_->deadline_ms - clock.SteadyMillis() + clock.UnixMillis()};
}

std::shared_ptr<Session> DeviceService::Find(const std::string& session_id, grpc::Status* status) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!session_ || session_->id != session_id) {
    *status = grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                           "no open session '" + session_id + "' on this server");
    return nullptr;
  }
  if (options_.clock->SteadyMillis() >= session_->deadline_ms) {
    session_.reset();
    *status = grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                           "session '" + session_id + "' reached its time limit");
    return nullptr;
  }
  return session_;
}

grpc::Status DeviceService::OpenSession(grpc::ServerContext*,
                                        const device::v1::OpenSessionRequest* request,
                                        device::v1::SessionRef* reply) {
  const tracker::v1::Grant& grant = request->grant();
  std::unique_lock<std::mutex> lock(mu_);
  // The tracker grants a session as soon as it has recorded the registration, which can be
  // before this server has read the reply that carries the grant key: wait for it a little.
  grant_key_set_.wait_for(lock, std::chrono::seconds(2),
                          [this] { return !guard_->grant_key().empty(); });
  const int64_t now_unix = options_.clock->UnixMillis();
  grpc::Status admitted = guard_->Admit(grant, now_unix);
  if (!admitted.ok()) return admitted;
  // The tracker only grants a busy server after ending its session, so a newer grant wins.
  session_.reset();
  auto session = std::make_shared<Session>();
  session->id = grant.session_id();
  session->deadline_ms = options_.clock->SteadyMillis() + (grant.expires_unix_ms() - now_unix);
  try {
    session->sandbox = std::make_unique<Sandbox>(options_.workdir + "/session-" + session->id,
                                                 options_.worker_uid, options_.worker_gid);
  } catch (const SandboxError& e) {
    return grpc::Status(grpc::StatusCode::INTERNAL, e.what());
  }
  session_ = session;
  TESSERA_LOG(kInfo) << "session opened key=" << grant.key() << " server=" << grant.server_id()
                     << " session=" << session->id;
  reply->set_session_id(session->id);
  reply->set_server_id(options_.server_id);
  reply->set_server_proof(
      ServerProof(ServerProofKey(guard_->grant_key(), grant), request->client_nonce()));
  return grpc::Status::OK;
}

grpc::Status DeviceService::CloseSession(grpc::ServerContext*,
                                         const device::v1::SessionRef* request,
                                         device::v1::Empty*) {
  EndSession(request->session_id());
  return grpc::Status::OK;
}

grpc::Status DeviceService::Upload(grpc::ServerContext*,
                                   grpc::ServerReader<device::v1::UploadChunk>* reader,
                                   device::v1::UploadReply* reply) {
  device::v1::UploadChunk chunk;
  if (!reader->Read(&chunk)) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "empty upload");
  }
  grpc::Status status;
  std::shared_ptr<Session> session = Find(chunk.session_id(), &status);
  if (!session) return status;
  const std::string name = chunk.name();
  std::lock_guard<std::mutex> lock(session->mu);
  int fd;
  try {
    fd = session->sandbox->OpenForWrite(name);
  } catch (const SandboxError& e) {
    return SandboxStatus(e);
  }
  int64_t total = 0;
  do {
    total += static_cast<int64_t>(chunk.data().size());
    if (total > options_.max_upload_bytes) {
      close(fd);
      session->sandbox->Remove(name);
      return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                          "upload '" + name + "' exceeds the limit of " +
                              std::to_string(options_.max_upload_bytes) + " bytes");
    }
    const char* data = chunk.data().data();
    size_t left = chunk.data().size();
    while (left > 0) {
      ssize_t n = write(fd, data, left);
      if (n < 0) {
        std::string why = std::strerror(errno);
        close(fd);
        session->sandbox->Remove(name);
        return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                            "cannot write upload '" + name + "': " + why);
      }
      data += n;
      left -= static_cast<size_t>(n);
    }
  } while (reader->Read(&chunk));
  close(fd);
  reply->set_size(total);
  return grpc::Status::OK;
}

void DeviceService::EnsureWorker(Session& session) {
  if (session.worker && session.worker->alive()) return;
  WorkerConfinement confinement;
  confinement.directory = session.sandbox->root();
  confinement.uid = options_.worker_uid;
  confinement.gid = options_.worker_gid;
  session.worker = std::make_unique<WorkerProcess>(options_.worker_executable, confinement);
  LogConfinement(session.worker->confinement());
  // A fresh worker (the first, or after a crash) gets the session's arrays and modules back.
  for (const auto& [id, array] : session.arrays) {
    device::v1::WorkerRequest request;
    request.mutable_map_array()->set_array_id(id);
    for (int64_t dim : array->shape()) request.mutable_map_array()->add_shape(dim);
    request.mutable_map_array()->set_dtype(array->dtype());
    device::v1::WorkerReply reply =
        session.worker->Call(request, array->fd(), options_.call_timeout_ms, "mapping arrays");
    if (!reply.ok())
      throw WorkerFailure("mapping array " + std::to_string(id) + ": " + reply.error());
  }
  for (bool model : {false, true}) {
    const std::string kind = model ? "model" : "module";
    for (const auto& [id, path] : model ? session.models : session.modules) {
      device::v1::WorkerReply reply = session.worker->Call(
          LoadRequest(model, id, path), -1, options_.call_timeout_ms, "reloading " + kind + "s");
      if (!reply.ok()) throw WorkerFailure("reloading " + kind + " " + path + ": " + reply.error());
    }
  }
}

grpc::Status DeviceService::RunInWorker(Session& session, const device::v1::WorkerRequest& request,
                                        const std::string& what, device::v1::WorkerReply* reply) {
  try {
    EnsureWorker(session);
    *reply = session.worker->Call(request, -1, options_.call_timeout_ms, what);
  } catch (const WorkerStartFailure& e) {
    // Not the kernel's fault: every call of every session fails the same way until the server is
    // restarted with a worker it can run, so its operator must see it too.
    TESSERA_LOG(kError) << "worker did not start session=" << session.id << " call=\"" << what
                        << "\": " << e.what();
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, what + ": " + e.what());
  } catch (const WorkerFailure& e) {
    return grpc::Status(grpc::StatusCode::UNKNOWN,
                        std::string(e.what()) +
                            " (the server goes on; the session's next call "
                            "gets a fresh worker)",
                        kKernelFaultDetails);
  }
  if (!reply->ok())
    return grpc::Status(grpc::StatusCode::UNKNOWN, what + " failed: " + reply->error(),
                        kKernelFaultDetails);
  return grpc::Status::OK;
}

grpc::Status DeviceService::LoadUpload(const std::string& session_id, const std::string& name,
                                       bool model, int64_t* id, device::v1::WorkerReply* reply) {
  grpc::Status status;
  std::shared_ptr<Session> session = Find(session_id, &status);
  if (!session) return status;
  std::lock_guard<std::mutex> lock(session->mu);
  std::string path;
  try {
    path = session->sandbox->PathOf(name);
  } catch (const SandboxError& e) {
    return SandboxStatus(e);
  }
  *id = session->next_id++;
  status = RunInWorker(*session, LoadRequest(model, *id, path),
                       (model ? "loading model '" : "loading module '") + name + "'", reply);
  if (!status.ok()) return status;
  (model ? session->models : session->modules)[*id] = path;
  return grpc::Status::OK;
}

grpc::Status DeviceService::LoadModule(grpc::ServerContext*,
                                       const device::v1::LoadModuleRequest* request,
                                       device::v1::LoadModuleReply* reply) {
  int64_t id;
  device::v1::WorkerReply worker_reply;
  grpc::Status status =
      LoadUpload(request->session_id(), request->name(), /*model=*/false, &id, &worker_reply);
  if (status.ok()) reply->set_module_id(id);
  return status;
}

grpc::Status DeviceService::AllocArray(grpc::ServerContext*,
                                       const device::v1::AllocArrayRequest* request,
                                       device::v1::AllocArrayReply* reply) {
  grpc::Status status;
  std::shared_ptr<Session> session = Find(request->session_id(), &status);
  if (!session) return status;
  DLDataType dtype;
  try {
    dtype = runtime::ParseDataType(request->dtype());
  } catch (const runtime::Error& e) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, e.what());
  }
  int64_t nbytes = static_cast<int64_t>(runtime::DataTypeBytes(dtype));
  for (int64_t dim : request->shape()) {
    if (dim < 0) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          "array dimension " + std::to_string(dim) + " is negative");
    }
    if (dim != 0 && nbytes > options_.max_array_bytes / dim) {
      nbytes = options_.max_array_bytes + 1;
      break;
    }
    nbytes *= dim;
  }
  if (nbytes > options_.max_array_bytes) {
    return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                        "array exceeds this server's limit of " +
                            std::to_string(options_.max_array_bytes) + " bytes");
  }
  std::lock_guard<std::mutex> lock(session->mu);
  std::shared_ptr<SharedArray> array;
  try {
    array = std::make_shared<SharedArray>(
        std::vector<int64_t>(request->shape().begin(), request->shape().end()), request->dtype(),
        static_cast<size_t>(nbytes));
  } catch (const std::runtime_error& e) {
    return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, e.what());
  }
  int64_t id = session->next_id++;
  if (session->worker && session->worker->alive()) {
    device::v1::WorkerRequest map;
    map.mutable_map_array()->set_array_id(id);
    *map.mutable_map_array()->mutable_shape() = request->shape();
    map.mutable_map_array()->set_dtype(request->dtype());
    try {
      session->worker->Call(map, array->fd(), options_.call_timeout_ms, "mapping an array");
    } catch (const WorkerFailure&) {
      // The next call starts a fresh worker, which maps every array.
    }
  }
  session->arrays[id] = std::move(array);
  reply->set_array_id(id);
  reply->set_nbytes(nbytes);
  return grpc::Status::OK;
}

grpc::Status DeviceService::FreeArray(grpc::ServerContext*, const device::v1::ArrayRef* request,
                                      device::v1::Empty*) {
  grpc::Status status;
  std::shared_ptr<Session> session = Find(request->session_id(), &status);
  if (!session) return status;
  std::lock_guard<std::mutex> lock(session->mu);
  if (session->arrays.erase(request->array_id()) == 0) {
    return grpc::Status(grpc::StatusCode::NOT_FOUND,
                        "no array " + std::to_string(request->array_id()) + " in this session");
  }
  if (session->worker && session->worker->alive()) {
    device::v1::WorkerRequest free;
    free.set_free_array(request->array_id());
    try {
      session->worker->Call(free, -1, options_.call_timeout_ms, "freeing an array");
    } catch (const WorkerFailure&) {
    }
  }
  return grpc::Status::OK;
}

std::shared_ptr<SharedArray> DeviceService::FindArray(Session& session, int64_t id,
                                                      grpc::Status* status) {
  std::lock_guard<std::mutex> lock(session.mu);
  auto it = session.arrays.find(id);
  if (it == session.arrays.end()) {
    *status = grpc::Status(grpc::StatusCode::NOT_FOUND,
                           "no array " + std::to_string(id) + " in this session");
    return nullptr;
  }
  return it->second;
}

std::shared_ptr<SharedArray> DeviceService::ArrayOfSession(const std::string& session_id,
                                                           int64_t array_id, grpc::Status* status) {
  std::shared_ptr<Session> session = Find(session_id, status);
  if (!session) return nullptr;
  return FindArray(*session, array_id, status);
}

grpc::ServerReadReactor<grpc::ByteBuffer>* DeviceService::CopyIn(grpc::CallbackServerContext*,
                                                                 grpc::ByteBuffer* response) {
  return NewArrayFiller(
      [this](const std::string& session_id, int64_t array_id, grpc::Status* status) {
        return ArrayOfSession(session_id, array_id, status);
      },
      response);
}

grpc::ServerWriteReactor<grpc::ByteBuffer>* DeviceService::CopyOut(
    grpc::CallbackServerContext*, const grpc::ByteBuffer* raw_request) {
  device::v1::ArrayRef request;
  grpc::Slice slice;
  if (!raw_request->DumpToSingleSlice(&slice).ok() ||
      !request.ParseFromArray(slice.begin(), static_cast<int>(slice.size()))) {
    return NewFailedWriter(
        grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "malformed CopyOut request"));
  }
  grpc::Status status;
  std::shared_ptr<Session> session = Find(request.session_id(), &status);
  if (!session) return NewFailedWriter(status);
  std::shared_ptr<SharedArray> array = FindArray(*session, request.array_id(), &status);
  if (!array) return NewFailedWriter(status);
  // A range request reads part of the array (parallel downloads); 0/0 means all of it.
  size_t begin = static_cast<size_t>(std::max<int64_t>(request.offset(), 0));
  size_t end =
      request.length() > 0 ? begin + static_cast<size_t>(request.length()) : array->nbytes();
  if (begin > array->nbytes() || end > array->nbytes()) {
    return NewFailedWriter(OutsideArray(request.array_id(), *array, begin, end));
  }
  return NewArrayWriter(std::move(array), request.array_id(), begin, end);
}

grpc::Status DeviceService::Call(grpc::ServerContext*, const device::v1::CallRequest* request,
                                 device::v1::Empty*) {
  grpc::Status status;
  std::shared_ptr<Session> session = Find(request->session_id(), &status);
  if (!session) return status;
  std::lock_guard<std::mutex> lock(session->mu);
  device::v1::WorkerRequest call;
  *call.mutable_call() = *request;
  device::v1::WorkerReply reply;
  return RunInWorker(*session, call, "function '" + request->function() + "'", &reply);
}

grpc::Status DeviceService::Time(grpc::ServerContext*, const device::v1::TimeRequest* request,
                                 device::v1::TimeReply* reply) {
  grpc::Status status;
  std::shared_ptr<Session> session = Find(request->call().session_id(), &status);
  if (!session) return status;
  std::lock_guard<std::mutex> lock(session->mu);
  device::v1::WorkerRequest time;
  *time.mutable_time() = *request;
  device::v1::WorkerReply worker_reply;
  status = RunInWorker(*session, time, "timing function '" + request->call().function() + "'",
                       &worker_reply);
  if (!status.ok()) return status;
  for (double seconds : worker_reply.seconds()) reply->add_seconds(seconds);
  return grpc::Status::OK;
}

grpc::Status DeviceService::LoadModel(grpc::ServerContext*,
                                      const device::v1::LoadModelRequest* request,
                                      device::v1::LoadModelReply* reply) {
  int64_t id;
  device::v1::WorkerReply worker_reply;
  grpc::Status status =
      LoadUpload(request->session_id(), request->name(), /*model=*/true, &id, &worker_reply);
  if (status.ok()) *reply = worker_reply.model();
  return status;
}

grpc::Status DeviceService::RunModel(grpc::ServerContext*,
                                     const device::v1::RunModelRequest* request,
                                     device::v1::RunModelReply* reply) {
  grpc::Status status;
  std::shared_ptr<Session> session = Find(request->session_id(), &status);
  if (!session) return status;
  std::lock_guard<std::mutex> lock(session->mu);
  device::v1::WorkerRequest run;
  *run.mutable_run_model() = *request;
  device::v1::WorkerReply worker_reply;
  status = RunInWorker(*session, run, "running model " + std::to_string(request->model_id()),
                       &worker_reply);
  if (!status.ok()) return status;
  *reply = worker_reply.run();
  return grpc::Status::OK;
}

}  // namespace fleet
}  // namespace tessera
