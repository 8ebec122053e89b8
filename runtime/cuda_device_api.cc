// The CUDA driver API is declared here by hand (the few entry points used) so that the runtime
// builds without the CUDA toolkit and links without libcuda; the driver is opened at run time.
#include <dlfcn.h>

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "runtime/cuda_devices.h"
#include "runtime/cuda_driver.h"
#include "runtime/error.h"
#include "runtime/time_evaluator.h"

namespace tessera {
namespace runtime {
namespace {

class CUDADriverAPI final : public DeviceAPI {
 public:
  CUDADriverAPI() {
    handle_ = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr) {
      const char* why = dlerror();
      error_ = std::string("no CUDA device: the CUDA driver (libcuda.so.1) could not be loaded: ") +
               (why ? why : "unknown reason");
      return;
    }
    // One table, not one call per entry point: the binding code stays small (the runner's size
    // is tracked).
    const std::pair<void**, const char*> entries[] = {
        {Slot(&t_.cuInit), "cuInit"},
        {Slot(&t_.cuDeviceGetCount), "cuDeviceGetCount"},
        {Slot(&t_.cuDeviceGet), "cuDeviceGet"},
        {Slot(&t_.cuDeviceGetName), "cuDeviceGetName"},
        {Slot(&t_.cuDeviceGetAttribute), "cuDeviceGetAttribute"},
        {Slot(&t_.cuDeviceTotalMem), "cuDeviceTotalMem_v2"},
        {Slot(&t_.cuDevicePrimaryCtxRetain), "cuDevicePrimaryCtxRetain"},
        {Slot(&t_.cuCtxSetCurrent), "cuCtxSetCurrent"},
        {Slot(&t_.cuCtxSynchronize), "cuCtxSynchronize"},
        {Slot(&t_.cuMemAlloc), "cuMemAlloc_v2"},
        {Slot(&t_.cuMemFree), "cuMemFree_v2"},
        {Slot(&t_.cuMemcpyHtoD), "cuMemcpyHtoD_v2"},
        {Slot(&t_.cuMemcpyDtoH), "cuMemcpyDtoH_v2"},
        {Slot(&t_.cuMemcpyDtoD), "cuMemcpyDtoD_v2"},
        {Slot(&t_.cuGetErrorString), "cuGetErrorString"},
        {Slot(&t_.cuModuleLoadData), "cuModuleLoadData"},
        {Slot(&t_.cuModuleUnload), "cuModuleUnload"},
        {Slot(&t_.cuModuleGetFunction), "cuModuleGetFunction"},
        {Slot(&t_.cuLaunchKernel), "cuLaunchKernel"},
        {Slot(&t_.cuEventCreate), "cuEventCreate"},
        {Slot(&t_.cuEventRecord), "cuEventRecord"},
        {Slot(&t_.cuEventSynchronize), "cuEventSynchronize"},
        {Slot(&t_.cuEventElapsedTime), "cuEventElapsedTime"},
        {Slot(&t_.cuEventDestroy), "cuEventDestroy_v2"},
        {Slot(&t_.cuStreamCreate), "cuStreamCreate"},
        {Slot(&t_.cuStreamDestroy), "cuStreamDestroy_v2"},
        {Slot(&t_.cuStreamSynchronize), "cuStreamSynchronize"},
        {Slot(&t_.cuMemcpyHtoDAsync), "cuMemcpyHtoDAsync_v2"},
        {Slot(&t_.cuMemcpyDtoHAsync), "cuMemcpyDtoHAsync_v2"},
    };
    bool ok = true;
    for (const auto& [slot, name] : entries) ok = ok && Bind(slot, name);
    if (!ok) return;
    CUresult r = t_.cuInit(0);
    if (r != 0) {
      error_ = "no CUDA device: cuInit failed: " + Describe(r);
      return;
    }
    if (t_.cuDeviceGetCount(&count_) != 0) count_ = 0;
    if (count_ == 0) error_ = "no CUDA device: the driver reports 0 devices";
  }

  void* Alloc(int id, size_t nbytes, size_t) override {
    Activate(id);
    CUdeviceptr ptr = 0;
    Check(t_.cuMemAlloc(&ptr, nbytes == 0 ? 1 : nbytes), "cuMemAlloc");
    return reinterpret_cast<void*>(ptr);
  }
  void Free(int id, void* ptr) override {
    Activate(id);
    t_.cuMemFree(reinterpret_cast<CUdeviceptr>(ptr));
  }
  void CopyFromHost(int id, void* dst, const void* src, size_t n) override {
    Activate(id);
    Check(t_.cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(dst), src, n), "cuMemcpyHtoD");
  }
  void CopyToHost(int id, void* dst, const void* src, size_t n) override {
    Activate(id);
    Check(t_.cuMemcpyDtoH(dst, reinterpret_cast<CUdeviceptr>(src), n), "cuMemcpyDtoH");
  }
  void CopyWithinDevice(int id, void* dst, const void* src, size_t n) override {
    Activate(id);
    Check(
        t_.cuMemcpyDtoD(reinterpret_cast<CUdeviceptr>(dst), reinterpret_cast<CUdeviceptr>(src), n),
        "cuMemcpyDtoD");
  }
  void Synchronize(int id) override {
    Activate(id);
    Check(t_.cuCtxSynchronize(), "cuCtxSynchronize");
  }
  // Streams are created blocking (flags 0): they wait for the default stream and it for them,
  // so the synchronous copies and frees of this API stay ordered with every stream's work.
  Stream CreateStream(int id) override {
    Activate(id);
    CUstream stream = nullptr;
    Check(t_.cuStreamCreate(&stream, 0), "cuStreamCreate");
    return stream;
  }
  void FreeStream(int id, Stream stream) override {
    Activate(id);
    if (stream != nullptr) t_.cuStreamDestroy(stream);
  }
  void SyncStream(int id, Stream stream) override {
    Activate(id);
    Check(t_.cuStreamSynchronize(stream), "cuStreamSynchronize");
  }
  Stream SetStream(int id, Stream stream) override {
    Stream& current = CurrentStream(id);
    Stream previous = current;
    current = stream;
    return previous;
  }
  Stream GetStream(int id) override { return CurrentStream(id); }
  void CopyFromHostAsync(int id, void* dst, const void* src, size_t n, Stream stream) override {
    Activate(id);
    Check(t_.cuMemcpyHtoDAsync(reinterpret_cast<CUdeviceptr>(dst), src, n, stream),
          "cuMemcpyHtoDAsync");
  }
  void CopyToHostAsync(int id, void* dst, const void* src, size_t n, Stream stream) override {
    Activate(id);
    Check(t_.cuMemcpyDtoHAsync(dst, reinterpret_cast<CUdeviceptr>(src), n, stream),
          "cuMemcpyDtoHAsync");
  }
  int DeviceCount() override {
    if (!error_.empty()) throw Error(error_);
    return count_;
  }
  const CUDADriverTable& table() const { return t_; }

  // Makes device `id`'s primary context current on this thread; the driver's table.
  const CUDADriverTable& Activate(int id) {
    DeviceCount();
    CUcontext ctx = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = contexts_.find(id);
      if (it == contexts_.end()) {
        CUdevice dev = 0;
        Check(t_.cuDeviceGet(&dev, id), "cuDeviceGet");
        Check(t_.cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
        contexts_[id] = ctx;
      } else {
        ctx = it->second;
      }
    }
    Check(t_.cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    return t_;
  }
  std::string Describe(CUresult r) {
    const char* text = nullptr;
    if (t_.cuGetErrorString != nullptr) t_.cuGetErrorString(r, &text);
    return text ? std::string(text) : "CUDA error " + std::to_string(r);
  }
  void Check(CUresult r, const char* what) {
    if (r != 0) throw Error(std::string("CUDA ") + what + " failed: " + Describe(r));
  }

 private:
  // This thread's current stream of device `id` (launches from different threads may use
  // different streams).
  Stream& CurrentStream(int id) {
    constexpr int kMaxDevices = 64;
    thread_local Stream streams[kMaxDevices] = {};
    if (id < 0 || id >= kMaxDevices) throw Error("no CUDA device: cuda:" + std::to_string(id));
    return streams[id];
  }

  // The table's function pointer `*slot` as the untyped slot dlsym fills.
  template <typename F>
  static void** Slot(F* slot) {
    static_assert(sizeof(F) == sizeof(void*), "function pointers must be pointer-sized");
    return reinterpret_cast<void**>(slot);
  }
  bool Bind(void** slot, const char* name) {
    *slot = dlsym(handle_, name);
    if (*slot == nullptr) {
      error_ = std::string("no CUDA device: the CUDA driver lacks ") + name + " (driver too old?)";
    }
    return *slot != nullptr;
  }

  void* handle_ = nullptr;
  CUDADriverTable t_{};
  int count_ = 0;
  std::string error_;
  std::mutex mu_;
  std::map<int, CUcontext> contexts_;
};

CUDADriverAPI* Driver() {
  static CUDADriverAPI* api = new CUDADriverAPI();  // never destroyed: the driver outlives exit
  return api;
}

}  // namespace

DeviceAPI* CUDADeviceAPI() { return Driver(); }

const CUDADriverTable& CUDADriverActivate(int device_id) { return Driver()->Activate(device_id); }

void CUDACheck(CUresult result, const char* what) { Driver()->Check(result, what); }

// The driver's attribute numbers (cuda.h's CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR/MINOR).
constexpr int kMajor = 75, kMinor = 76;

int CUDAComputeCapability(int device_id) {
  try {
    Driver()->DeviceCount();
  } catch (const Error&) {
    return 0;
  }
  const CUDADriverTable& t = Driver()->table();
  CUdevice dev = 0;
  int major = 0, minor = 0;
  if (t.cuDeviceGet(&dev, device_id) != 0) return 0;
  t.cuDeviceGetAttribute(&major, kMajor, dev);
  t.cuDeviceGetAttribute(&minor, kMinor, dev);
  return major * 10 + minor;
}

std::vector<CUDADeviceProperties> ListCUDADevices() {
  std::vector<CUDADeviceProperties> gpus;
  int count = 0;
  try {
    count = Driver()->DeviceCount();
  } catch (const Error&) {
    return gpus;  // no driver or no device: zero GPUs, which is an answer, not an error
  }
  const CUDADriverTable& t = Driver()->table();
  for (int i = 0; i < count; ++i) {
    CUdevice dev = 0;
    if (t.cuDeviceGet(&dev, i) != 0) continue;
    CUDADeviceProperties gpu;
    char name[256] = {};
    if (t.cuDeviceGetName(name, sizeof(name) - 1, dev) == 0) gpu.name = name;
    t.cuDeviceGetAttribute(&gpu.major, kMajor, dev);
    t.cuDeviceGetAttribute(&gpu.minor, kMinor, dev);
    size_t bytes = 0;
    if (t.cuDeviceTotalMem(&bytes, dev) == 0) gpu.memory_bytes = static_cast<int64_t>(bytes);
    gpus.push_back(gpu);
  }
  return gpus;
}

double CUDAElapsedSeconds(int device_id, const std::function<void()>& run) {
  const CUDADriverTable& drv = CUDADriverActivate(device_id);
  DeviceAPI* api = Driver();
  CUevent start = nullptr, stop = nullptr;
  CUDACheck(drv.cuEventCreate(&start, 0), "cuEventCreate");
  CUDACheck(drv.cuEventCreate(&stop, 0), "cuEventCreate");
  // The timed launches go to a stream of their own, which the events bracket.
  CUstream stream = api->CreateStream(device_id);
  CUstream previous = api->SetStream(device_id, stream);
  struct Destroy {
    const CUDADriverTable& drv;
    DeviceAPI* api;
    int device;
    CUevent a, b;
    CUstream stream, previous;
    ~Destroy() {
      api->SetStream(device, previous);
      drv.cuStreamDestroy(stream);
      drv.cuEventDestroy(a);
      drv.cuEventDestroy(b);
    }
  } destroy{drv, api, device_id, start, stop, stream, previous};
  CUDACheck(drv.cuEventRecord(start, stream), "cuEventRecord");
  run();
  CUDACheck(drv.cuEventRecord(stop, stream), "cuEventRecord");
  CUDACheck(drv.cuEventSynchronize(stop), "cuEventSynchronize");
  float ms = 0;
  CUDACheck(drv.cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
  return ms * 1e-3;
}

}  // namespace runtime
}  // namespace tessera
