// The worker process's side of rpc_server/worker.h: maps arrays, loads modules and model
// artifacts, calls and times functions and models with the runtime. Anything uploaded code does
// to this process stays here.
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/command_line.h"
#include "deploy/artifact.h"
#include "deploy/run_model.h"
#include "rpc_server/worker.h"
#include "runtime/cuda_module.h"
#include "runtime/data_type.h"
#include "runtime/module.h"
#include "runtime/ndarray.h"
#include "runtime/time_evaluator.h"

namespace tessera {
namespace fleet {
namespace {

using runtime::NDArray;

constexpr DLDevice kGpu{kDLCUDA, 0};  // sessions measure on the server's GPU 0

// The session directory, the worker's working directory (see rpc_server/confine.h).
std::string session_directory;  // NOLINT: set once, before any request

// The server names uploads by absolute path; the worker opens them relative to its working
// directory, as the directories above it may be closed to the worker's user.
std::string Local(const std::string& path) {
  const std::string prefix = session_directory + "/";
  if (!session_directory.empty() && path.compare(0, prefix.size(), prefix) == 0) {
    return "./" + path.substr(prefix.size());
  }
  return path;
}

// Keeps what a mapped DLTensor points at alive until the runtime lets go of it.
struct MappedTensor {
  std::vector<int64_t> shape;
  void* data = nullptr;
  size_t mapped = 0;
  DLManagedTensor managed{};
};

NDArray MapArray(const device::v1::MapArray& request, int fd) {
  DLDataType dtype;
  try {
    dtype = runtime::ParseDataType(request.dtype());
  } catch (...) {
    close(fd);
    throw;
  }
  auto* mapped = new MappedTensor;
  mapped->shape.assign(request.shape().begin(), request.shape().end());
  size_t nbytes = runtime::DataTypeBytes(dtype);
  for (int64_t dim : mapped->shape) nbytes *= static_cast<size_t>(dim);
  mapped->mapped = nbytes == 0 ? 1 : nbytes;
  mapped->data = mmap(nullptr, mapped->mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (mapped->data == MAP_FAILED) {
    delete mapped;
    throw runtime::Error("cannot map array " + std::to_string(request.array_id()));
  }
  DLTensor& tensor = mapped->managed.dl_tensor;
  tensor.data = mapped->data;
  tensor.device = runtime::CPUDevice();
  tensor.ndim = static_cast<int>(mapped->shape.size());
  tensor.dtype = dtype;
  tensor.shape = mapped->shape.data();
  tensor.strides = nullptr;
  tensor.byte_offset = 0;
  mapped->managed.manager_ctx = mapped;
  mapped->managed.deleter = [](DLManagedTensor* self) {
    auto* owner = static_cast<MappedTensor*>(self->manager_ctx);
    munmap(owner->data, owner->mapped);
    delete owner;
  };
  return NDArray::FromDLPack(&mapped->managed);
}

class Worker {
 public:
  device::v1::WorkerReply Handle(const device::v1::WorkerRequest& request, int fd) {
    device::v1::WorkerReply reply;
    switch (request.op_case()) {
      case device::v1::WorkerRequest::kMapArray:
        if (fd < 0) throw runtime::Error("MapArray without a descriptor");
        arrays_[request.map_array().array_id()] = MapArray(request.map_array(), fd);
        break;
      case device::v1::WorkerRequest::kFreeArray:
        arrays_.erase(request.free_array());
        break;
      case device::v1::WorkerRequest::kLoad:
        modules_[request.load().module_id()] = LoadModuleFile(Local(request.load().path()));
        break;
      case device::v1::WorkerRequest::kCall:
        Invoke(request.call(), nullptr);
        break;
      case device::v1::WorkerRequest::kTime:
        Invoke(request.time().call(), &request.time(), &reply);
        break;
      case device::v1::WorkerRequest::kLoadModel:
        LoadModel(request.load_model(), reply.mutable_model());
        break;
      case device::v1::WorkerRequest::kRunModel:
        RunModel(request.run_model(), reply.mutable_run());
        break;
      default:
        throw runtime::Error("unknown worker request");
    }
    reply.set_ok(true);
    return reply;
  }

 private:
  void Invoke(const device::v1::CallRequest& call, const device::v1::TimeRequest* time,
              device::v1::WorkerReply* reply = nullptr) {
    auto module = modules_.find(call.module_id());
    if (module == modules_.end()) {
      throw runtime::Error("no module " + std::to_string(call.module_id()) + " in this session");
    }
    runtime::PackedFunc func = module->second.GetFunction(call.function());
    if (!func.defined()) {
      throw runtime::Error("module " + std::to_string(call.module_id()) + " has no function '" +
                           call.function() + "'");
    }
    std::vector<TesseraValue> values(call.args_size() + 1);
    std::vector<int32_t> codes(call.args_size() + 1);
    for (int i = 0; i < call.args_size(); ++i) {
      const device::v1::Arg& arg = call.args(i);
      switch (arg.value_case()) {
        case device::v1::Arg::kIntValue:
          values[i].v_int64 = arg.int_value();
          codes[i] = kTesseraInt;
          break;
        case device::v1::Arg::kFloatValue:
          values[i].v_float64 = arg.float_value();
          codes[i] = kTesseraFloat;
          break;
        case device::v1::Arg::kArrayId: {
          auto array = arrays_.find(arg.array_id());
          if (array == arrays_.end()) {
            throw runtime::Error("argument " + std::to_string(i) + ": no array " +
                                 std::to_string(arg.array_id()) + " in this session");
          }
          values[i].v_handle = array->second.get();
          codes[i] = kTesseraDLTensorHandle;
          break;
        }
        default:
          throw runtime::Error("argument " + std::to_string(i) + " has no value");
      }
    }
    // The session's arrays are host memory shared with the server; a CUDA function gets device
    // copies of them (without a GPU, allocating one throws "no CUDA device: ..."), and every one
    // is copied back after the call, as the function may have written any of them.
    const bool gpu = module->second.type_key() == "cuda";
    std::vector<std::pair<NDArray, NDArray>> mirrors;  // (session array, device copy)
    for (int i = 0; gpu && i < call.args_size(); ++i) {
      if (codes[i] != kTesseraDLTensorHandle) continue;
      NDArray host = arrays_.at(call.args(i).array_id());
      std::vector<int64_t> shape(host->shape, host->shape + host->ndim);
      NDArray device = NDArray::Empty(shape, host->dtype, kGpu);
      device.CopyFrom(host);
      values[i].v_handle = device.get();
      mirrors.emplace_back(host, device);
    }
    runtime::PackedArgs args(values.data(), codes.data(), call.args_size());
    if (time == nullptr) {
      runtime::RetValue ignored;
      func.CallPacked(args, &ignored);
      for (auto& [host, device] : mirrors) host.CopyFrom(device);
      return;
    }
    runtime::TimeEvaluatorOptions options;
    options.number = time->number();
    options.repeat = time->repeat();
    options.min_repeat_ms = time->min_repeat_ms();
    options.evict_args.assign(time->evict_args().begin(), time->evict_args().end());
    for (double seconds :
         runtime::TimeFunction(func, gpu ? kGpu : runtime::CPUDevice(), options, args)) {
      reply->add_seconds(seconds);
    }
    for (auto& [host, device] : mirrors) host.CopyFrom(device);
  }

  // A CUDA module's export (its launchers and PTX, a text file that starts with
  // "tessera-cuda-module") or a shared library, whatever the uploaded file's name.
  static runtime::Module LoadModuleFile(const std::string& path) {
    static const std::string kMagic = "tessera-cuda-module";
    std::string head(kMagic.size(), '\0');
    std::ifstream file(path, std::ios::binary);
    file.read(&head[0], static_cast<std::streamsize>(head.size()));
    if (file && head == kMagic) return runtime::LoadCUDAModule(path);
    return runtime::Module::LoadFromFile(path);
  }

  static void Describe(const runtime::ExecTensor& tensor, device::v1::TensorInfo* info) {
    info->set_name(tensor.name);
    for (int64_t dim : tensor.shape) info->add_shape(dim);
    info->set_dtype(runtime::DataTypeToString(tensor.dtype));
  }

  // The artifact's checks (architecture, CPU features) run here, on the device.
  void LoadModel(const device::v1::LoadInWorker& load, device::v1::LoadModelReply* reply) {
    const auto start = std::chrono::steady_clock::now();
    auto model = std::make_unique<deploy::LoadedModel>(deploy::LoadArtifact(Local(load.path())));
    reply->set_load_seconds(SecondsSince(start));
    reply->set_model_id(load.module_id());
    reply->set_target(model->header.target);
    const runtime::GraphExecutor& exec = model->executor;
    for (int i = 0; i < exec.NumInputs(); ++i) Describe(exec.InputInfo(i), reply->add_inputs());
    for (int i = 0; i < exec.NumOutputs(); ++i) Describe(exec.OutputInfo(i), reply->add_outputs());
    models_[load.module_id()] = std::move(model);
  }

  NDArray ArrayOf(const device::v1::NamedArray& named) {
    auto array = arrays_.find(named.array_id());
    if (array == arrays_.end()) {
      throw runtime::Error("'" + named.name() + "': no array " + std::to_string(named.array_id()) +
                           " in this session");
    }
    return array->second;
  }

  // The executor's outputs are views of its own buffers: they are copied into the session's
  // arrays after the first run, before the timed runs overwrite them.
  void RunModel(const device::v1::RunModelRequest& run, device::v1::RunModelReply* reply) {
    auto model = models_.find(run.model_id());
    if (model == models_.end()) {
      throw runtime::Error("no model " + std::to_string(run.model_id()) + " in this session");
    }
    reply->set_threads(deploy::UseModelThreads(model->second->header));
    runtime::GraphExecutor& exec = model->second->executor;
    for (const device::v1::NamedArray& input : run.inputs()) {
      exec.SetInput(input.name(), ArrayOf(input));
    }
    const auto start = std::chrono::steady_clock::now();
    exec.Run();
    reply->set_first_run_seconds(SecondsSince(start));
    for (const device::v1::NamedArray& output : run.outputs()) {
      ArrayOf(output).CopyFrom(exec.GetOutput(output.name()));
    }
    if (run.repeat() <= 0) return;
    runtime::PackedFunc whole_model(
        [&exec](runtime::PackedArgs, runtime::RetValue*) { exec.Run(); });
    runtime::TimeEvaluatorOptions options;
    options.number = 1;
    options.repeat = run.repeat();
    std::vector<double> ms;
    for (double seconds : runtime::TimeFunction(whole_model, runtime::CPUDevice(), options,
                                                runtime::PackedArgs(nullptr, nullptr, 0))) {
      ms.push_back(seconds * 1e3);
    }
    const deploy::Latency latency = deploy::Summarize(std::move(ms));
    reply->set_runs(run.repeat());
    reply->set_mean_seconds(latency.mean_ms / 1e3);
    reply->set_median_seconds(latency.median_ms / 1e3);
    reply->set_min_seconds(latency.min_ms / 1e3);
  }

  static double SecondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  std::map<int64_t, NDArray> arrays_;
  std::map<int64_t, runtime::Module> modules_;
  std::map<int64_t, std::unique_ptr<deploy::LoadedModel>> models_;
};

}  // namespace

int RunWorker(int socket, const WorkerConfinement& confinement) {
  // Confined first, while this process has one thread (a network namespace needs that) and
  // before it reads any request.
  const ConfinementReport report = ConfineWorker(confinement);
  if (!report.fatal.empty()) {
    const std::string refused = "refused\n" + report.Text();
    send(socket, refused.data(), refused.size(), MSG_NOSIGNAL);
    return 1;
  }
  session_directory = confinement.directory;
  // A worker must not outlive its server, even while uploaded code spins in an endless loop.
  const pid_t parent = getppid();
  std::thread([parent] {
    while (getppid() == parent) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    _exit(1);
  }).detach();
  Worker worker;
  const std::string ready = "ready\n" + report.Text();
  if (send(socket, ready.data(), ready.size(), MSG_NOSIGNAL) < 0) return 1;
  std::string buffer(1 << 16, '\0');
  while (true) {
    iovec iov{&buffer[0], buffer.size()};
    msghdr message{};
    message.msg_iov = &iov;
    message.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
    message.msg_control = control;
    message.msg_controllen = sizeof(control);
    ssize_t n = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
    if (n <= 0) return 0;  // the server closed the session
    int fd = -1;
    for (cmsghdr* header = CMSG_FIRSTHDR(&message); header != nullptr;
         header = CMSG_NXTHDR(&message, header)) {
      if (header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_RIGHTS) {
        std::memcpy(&fd, CMSG_DATA(header), sizeof(int));
      }
    }
    device::v1::WorkerRequest request;
    device::v1::WorkerReply reply;
    if (!request.ParseFromArray(buffer.data(), static_cast<int>(n))) {
      reply.set_error("malformed worker request");
    } else {
      try {
        reply = worker.Handle(request, fd);
      } catch (const std::exception& e) {
        reply.set_ok(false);
        reply.set_error(std::string(e.what()).substr(0, 8000));
      }
    }
    std::string bytes = reply.SerializeAsString();
    if (send(socket, bytes.data(), bytes.size(), MSG_NOSIGNAL) < 0) return 1;
  }
}

int RunWorkerCommandLine(int argc, char** argv) {
  int fd = -1;
  WorkerConfinement confinement;
  CLI::App app{"Runs one session's calls (started by the server itself).", "tessera-rpc-server"};
  app.add_option("--worker-fd", fd, "the socket the server talks to this worker on")
      ->required()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--worker-dir", confinement.directory, "the session directory")->required();
  CLI::Option* uid = app.add_option("--worker-uid", confinement.uid, "user to run as");
  CLI::Option* gid = app.add_option("--worker-gid", confinement.gid, "group to run as");
  uid->needs(gid);
  gid->needs(uid);
  return RunCommandLine(app, argc, argv, std::cout, std::cerr,
                        [&] { return RunWorker(fd, confinement); });
}

}  // namespace fleet
}  // namespace tessera
