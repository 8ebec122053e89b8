#include "fleet/client/remote_session.h"

#include <algorithm>

#include "common/error.h"
#include "common/file.h"
#include "fleet/client/channel.h"
#include "fleet/client/raw_chunks.h"
#include "fleet/secrets.h"
#include "proto/server_proof.h"

namespace tessera {
namespace fleet {
namespace {

constexpr size_t kChunkBytes = 1 << 20;
constexpr int kCopyStreams = 4;

// A server behind NAT is reached through its tracker's relay (docs/fleet.md).
std::shared_ptr<grpc::Channel> MakeDeviceChannel(const TrackerClient* tracker,
                                                 const tracker::v1::Grant& grant) {
  if (!IsRelayAddress(grant.server_address())) return MakeChannel(grant.server_address());
  if (tracker == nullptr) {
    throw FleetError(FleetErrorCode::kInvalidArgument,
                     "server '" + grant.server_id() +
                         "' is reached through its tracker's relay, and this session has no "
                         "tracker");
  }
  return MakeChannel(tracker->address(), tracker->tls_ca_file());
}

}  // namespace

bool IsRelayAddress(const std::string& address) { return address.rfind("relay:", 0) == 0; }

void RemoteSession::AddSessionMetadata(grpc::ClientContext* context) const {
  // The relay routes by it; a server reached directly ignores it.
  context->AddMetadata("x-tessera-session", grant_.session_id());
}

RemoteArg RemoteArg::Array(int64_t id) {
  RemoteArg arg;
  arg.proto.set_array_id(id);
  return arg;
}
RemoteArg RemoteArg::Int(int64_t value) {
  RemoteArg arg;
  arg.proto.set_int_value(value);
  return arg;
}
RemoteArg RemoteArg::Float(double value) {
  RemoteArg arg;
  arg.proto.set_float_value(value);
  return arg;
}

// Registers a call's context so that a lost device cancels it; refuses to start on a lost one.
class RemoteSession::Scope {
 public:
  explicit Scope(RemoteSession* session) : session_(session) {
    std::lock_guard<std::mutex> lock(session_->mu_);
    if (!session_->lost_.empty()) throw FleetError(session_->lost_code_, session_->lost_);
    if (session_->closed_) {
      throw FleetError(FleetErrorCode::kSessionEnded,
                       "session '" + session_->grant_.session_id() + "' is closed");
    }
    // gRPC would connect again to whatever process holds the port now; the session lived on
    // the connection the server proved itself on.
    if (session_->opened_ && !session_->connection_up()) {
      session_->lost_ = "device lost: the connection to server " +
                        session_->grant_.server_address() + " dropped since the session opened";
      throw FleetError(FleetErrorCode::kDeviceLost, session_->lost_);
    }
    session_->in_flight_.insert(&context);
    session_->AddSessionMetadata(&context);
  }
  ~Scope() {
    std::lock_guard<std::mutex> lock(session_->mu_);
    session_->in_flight_.erase(&context);
  }
  grpc::ClientContext context;

 private:
  RemoteSession* session_;
};

std::unique_ptr<RemoteSession> RemoteSession::Open(std::shared_ptr<TrackerClient> tracker,
                                                   const SessionOptions& options) {
  tracker::v1::SessionReply reply = tracker->RequestSession(options);
  try {
    return std::make_unique<RemoteSession>(tracker, reply.grant(), reply.keepalive_ms(),
                                           reply.server_proof_key());
  } catch (...) {
    try {
      tracker->ReleaseSession(reply.grant().session_id());
    } catch (const FleetError&) {
    }
    throw;
  }
}

RemoteSession::RemoteSession(std::shared_ptr<TrackerClient> tracker, tracker::v1::Grant grant,
                             int64_t keepalive_ms, const std::string& server_proof_key)
    : tracker_(std::move(tracker)),
      grant_(std::move(grant)),
      channel_(MakeDeviceChannel(tracker_.get(), grant_)),
      stub_(device::v1::Device::NewStub(channel_)) {
  device::v1::OpenSessionRequest request;
  *request.mutable_grant() = grant_;
  request.set_client_nonce(RandomBytes(16));
  device::v1::SessionRef reply;
  {
    Scope scope(this);
    scope.context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    Check(stub_->OpenSession(&scope.context, request, &reply), "OpenSession");
  }
  if (!server_proof_key.empty() &&
      (reply.server_id() != grant_.server_id() ||
       !SecretsEqual(ServerProof(server_proof_key, request.client_nonce()),
                     reply.server_proof()))) {
    throw FleetError(FleetErrorCode::kDeviceLost,
                     "device lost: the server at " + grant_.server_address() +
                         " is not the granted server '" + grant_.server_id() +
                         "' (it cannot prove it; another process may hold the port)");
  }
  opened_ = true;
  if (tracker_ && keepalive_ms > 0) {
    keepalive_ = std::thread([this, keepalive_ms] { KeepaliveLoop(keepalive_ms); });
  }
}

bool RemoteSession::connection_up() const {
  return channel_->GetState(false) == GRPC_CHANNEL_READY;
}

RemoteSession::~RemoteSession() {
  try {
    Close();
  } catch (const std::exception&) {
  }
}

void RemoteSession::KeepaliveLoop(int64_t keepalive_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  while (!closed_) {
    wake_.wait_for(lock, std::chrono::milliseconds(keepalive_ms));
    if (closed_) return;
    lock.unlock();
    std::string why;
    FleetErrorCode code = FleetErrorCode::kDeviceLost;
    try {
      tracker_->KeepSession(grant_.session_id());
      ++keepalives_;
    } catch (const FleetError& e) {
      if (e.code() == FleetErrorCode::kDeviceLost || e.code() == FleetErrorCode::kSessionEnded) {
        why = e.what();
        code = e.code();
      }
    }
    lock.lock();
    if (!why.empty()) {
      lost_ = why;
      lost_code_ = code;
      for (grpc::ClientContext* context : in_flight_) context->TryCancel();
      return;
    }
  }
}

void RemoteSession::Check(const grpc::Status& status, const char* what) {
  if (status.ok()) return;
  std::string where = std::string("server ") + grant_.server_address() + " (" + what + ")";
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!lost_.empty()) throw FleetError(lost_code_, lost_);
  }
  ThrowSessionStatus(status, where);
}

void RemoteSession::Upload(const std::string& name, const std::string& bytes) {
  Scope scope(this);
  device::v1::UploadReply reply;
  auto writer = stub_->Upload(&scope.context, &reply);
  device::v1::UploadChunk chunk;
  chunk.set_session_id(grant_.session_id());
  chunk.set_name(name);
  size_t offset = 0;
  do {
    size_t size = std::min(kChunkBytes, bytes.size() - offset);
    chunk.mutable_data()->assign(bytes.data() + offset, size);
    offset += size;
    if (!writer->Write(chunk)) break;  // the server ended the stream; Finish says why
    chunk.clear_session_id();
    chunk.clear_name();
  } while (offset < bytes.size());
  writer->WritesDone();
  Check(writer->Finish(), "Upload");
}

void RemoteSession::UploadFile(const std::string& name, const std::string& path) {
  Upload(name, ReadFile(path, "upload"));
}

int64_t RemoteSession::LoadModule(const std::string& name) {
  Scope scope(this);
  device::v1::LoadModuleRequest request;
  request.set_session_id(grant_.session_id());
  request.set_name(name);
  device::v1::LoadModuleReply reply;
  Check(stub_->LoadModule(&scope.context, request, &reply), "LoadModule");
  return reply.module_id();
}

int64_t RemoteSession::AllocArray(const std::vector<int64_t>& shape, const std::string& dtype) {
  Scope scope(this);
  device::v1::AllocArrayRequest request;
  request.set_session_id(grant_.session_id());
  for (int64_t dim : shape) request.add_shape(dim);
  request.set_dtype(dtype);
  device::v1::AllocArrayReply reply;
  Check(stub_->AllocArray(&scope.context, request, &reply), "AllocArray");
  std::lock_guard<std::mutex> lock(mu_);
  array_bytes_[reply.array_id()] = static_cast<size_t>(reply.nbytes());
  return reply.array_id();
}

void RemoteSession::FreeArray(int64_t array) {
  Scope scope(this);
  device::v1::ArrayRef request;
  request.set_session_id(grant_.session_id());
  request.set_array_id(array);
  device::v1::Empty reply;
  Check(stub_->FreeArray(&scope.context, request, &reply), "FreeArray");
  std::lock_guard<std::mutex> lock(mu_);
  array_bytes_.erase(array);
}

void RemoteSession::CheckArraySize(int64_t array, size_t nbytes) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = array_bytes_.find(array);
  if (it != array_bytes_.end() && it->second != nbytes) {
    throw FleetError(FleetErrorCode::kInvalidArgument, "array " + std::to_string(array) + " has " +
                                                           std::to_string(it->second) +
                                                           " bytes, not " + std::to_string(nbytes));
  }
}

template <typename CopyRange>
void RemoteSession::InParallel(size_t nbytes, CopyRange copy) {
  // Large arrays move over several streams at once: each stream is bound by one core's copying.
  size_t streams = nbytes >= (32u << 20) ? static_cast<size_t>(kCopyStreams) : 1;
  size_t step = (nbytes / streams + kChunkBytes - 1) / kChunkBytes * kChunkBytes;
  std::vector<std::thread> threads;
  std::vector<std::exception_ptr> errors(streams);
  for (size_t i = 0; i < streams; ++i) {
    size_t begin = std::min(nbytes, i * step);
    size_t end = i + 1 == streams ? nbytes : std::min(nbytes, begin + step);
    threads.emplace_back([&, i, begin, end] {
      try {
        copy(begin, end);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (auto& error : errors) {
    if (error) std::rethrow_exception(error);
  }
}

// Array bytes bypass protobuf on this side (raw_chunks.h): the generated stub would copy every
// chunk twice more. The methods are the same ones the generated stub calls.
void RemoteSession::CopyIn(int64_t array, const void* data, size_t nbytes) {
  CheckArraySize(array, nbytes);
  const char* bytes = static_cast<const char*>(data);
  const grpc::internal::RpcMethod method("/tessera.device.v1.Device/CopyIn",
                                         grpc::internal::RpcMethod::CLIENT_STREAMING, channel_);
  InParallel(nbytes, [&](size_t begin, size_t end) {
    Scope scope(this);
    device::v1::CopyReply reply;
    std::unique_ptr<grpc::ClientWriter<OutgoingChunk>> writer(
        grpc::internal::ClientWriterFactory<OutgoingChunk>::Create(channel_.get(), method,
                                                                   &scope.context, &reply));
    OutgoingChunk chunk;
    chunk.session_id = grant_.session_id();
    chunk.array_id = array;
    size_t offset = begin;
    do {
      chunk.offset = static_cast<int64_t>(offset);
      chunk.data = bytes + offset;
      chunk.size = std::min(kChunkBytes, end - offset);
      offset += chunk.size;
      if (!writer->Write(chunk)) break;
    } while (offset < end);
    writer->WritesDone();
    Check(writer->Finish(), "CopyIn");
  });
}

void RemoteSession::CopyOut(int64_t array, void* data, size_t nbytes) {
  CheckArraySize(array, nbytes);
  const grpc::internal::RpcMethod method("/tessera.device.v1.Device/CopyOut",
                                         grpc::internal::RpcMethod::SERVER_STREAMING, channel_);
  InParallel(nbytes, [&](size_t begin, size_t end) {
    Scope scope(this);
    device::v1::ArrayRef request;
    request.set_session_id(grant_.session_id());
    request.set_array_id(array);
    request.set_offset(static_cast<int64_t>(begin));
    request.set_length(static_cast<int64_t>(end - begin));
    std::unique_ptr<grpc::ClientReader<IncomingChunk>> reader(
        grpc::internal::ClientReaderFactory<IncomingChunk>::Create(channel_.get(), method,
                                                                   &scope.context, request));
    IncomingChunk chunk;
    chunk.base = static_cast<char*>(data);
    chunk.begin = begin;
    chunk.end = end;
    while (reader->Read(&chunk)) {
    }
    grpc::Status status = reader->Finish();
    if (!chunk.error.empty())
      throw FleetError(FleetErrorCode::kInternal, "CopyOut: " + chunk.error);
    Check(status, "CopyOut");
    if (chunk.received != end - begin) {
      throw FleetError(FleetErrorCode::kInternal, "CopyOut: received " +
                                                      std::to_string(chunk.received) + " of " +
                                                      std::to_string(end - begin) + " bytes");
    }
  });
}

void RemoteSession::Call(int64_t module, const std::string& function,
                         const std::vector<RemoteArg>& args) {
  Scope scope(this);
  device::v1::CallRequest request;
  request.set_session_id(grant_.session_id());
  request.set_module_id(module);
  request.set_function(function);
  for (const RemoteArg& arg : args) *request.add_args() = arg.proto;
  device::v1::Empty reply;
  Check(stub_->Call(&scope.context, request, &reply), "Call");
}

std::vector<double> RemoteSession::Time(int64_t module, const std::string& function,
                                        const std::vector<RemoteArg>& args, int number, int repeat,
                                        int min_repeat_ms, const std::vector<int>& evict_args) {
  Scope scope(this);
  device::v1::TimeRequest request;
  device::v1::CallRequest* call = request.mutable_call();
  call->set_session_id(grant_.session_id());
  call->set_module_id(module);
  call->set_function(function);
  for (const RemoteArg& arg : args) *call->add_args() = arg.proto;
  request.set_number(number);
  request.set_repeat(repeat);
  request.set_min_repeat_ms(min_repeat_ms);
  for (int i : evict_args) request.add_evict_args(i);
  device::v1::TimeReply reply;
  Check(stub_->Time(&scope.context, request, &reply), "Time");
  return std::vector<double>(reply.seconds().begin(), reply.seconds().end());
}

device::v1::LoadModelReply RemoteSession::LoadModel(const std::string& name) {
  Scope scope(this);
  device::v1::LoadModelRequest request;
  request.set_session_id(grant_.session_id());
  request.set_name(name);
  device::v1::LoadModelReply reply;
  Check(stub_->LoadModel(&scope.context, request, &reply), "LoadModel");
  return reply;
}

device::v1::RunModelReply RemoteSession::RunModel(device::v1::RunModelRequest request) {
  Scope scope(this);
  request.set_session_id(grant_.session_id());
  device::v1::RunModelReply reply;
  Check(stub_->RunModel(&scope.context, request, &reply), "RunModel");
  return reply;
}

void RemoteSession::Close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return;
    closed_ = true;
  }
  wake_.notify_all();
  if (keepalive_.joinable()) keepalive_.join();
  grpc::ClientContext context;
  AddSessionMetadata(&context);
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
  device::v1::SessionRef ref;
  ref.set_session_id(grant_.session_id());
  device::v1::Empty reply;
  if (channel_->GetState(false) == GRPC_CHANNEL_READY) {
    stub_->CloseSession(&context, ref, &reply);  // a dead server has nothing to close
  }
  if (tracker_) tracker_->ReleaseSession(grant_.session_id());
}

}  // namespace fleet
}  // namespace tessera
