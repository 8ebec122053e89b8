// The CUDA driver API is declared here by hand (the few entry points used) so that the runtime
// builds without the CUDA toolkit and links without libcuda; the driver is opened at run time.
#include <dlfcn.h>

#include <map>
#include <mutex>
#include <string>

#include "runtime/cuda_driver.h"
#include "runtime/error.h"

namespace tessera {
namespace runtime {
namespace {

using CUresult = int;
using CUdevice = int;
using CUcontext = void*;
using CUdeviceptr = unsigned long long;  // NOLINT(runtime/int): the driver's own type

struct DriverTable {
  CUresult (*cuInit)(unsigned int);
  CUresult (*cuDeviceGetCount)(int*);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t);
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t);
  CUresult (*cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*cuGetErrorString)(CUresult, const char**);
};

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
    bool ok =
        Bind(&t_.cuInit, "cuInit") && Bind(&t_.cuDeviceGetCount, "cuDeviceGetCount") &&
        Bind(&t_.cuDeviceGet, "cuDeviceGet") &&
        Bind(&t_.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
        Bind(&t_.cuCtxSetCurrent, "cuCtxSetCurrent") &&
        Bind(&t_.cuCtxSynchronize, "cuCtxSynchronize") && Bind(&t_.cuMemAlloc, "cuMemAlloc_v2") &&
        Bind(&t_.cuMemFree, "cuMemFree_v2") && Bind(&t_.cuMemcpyHtoD, "cuMemcpyHtoD_v2") &&
        Bind(&t_.cuMemcpyDtoH, "cuMemcpyDtoH_v2") && Bind(&t_.cuMemcpyDtoD, "cuMemcpyDtoD_v2") &&
        Bind(&t_.cuGetErrorString, "cuGetErrorString");
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
  int DeviceCount() override {
    if (!error_.empty()) throw Error(error_);
    return count_;
  }

 private:
  template <typename F>
  bool Bind(F* slot, const char* name) {
    *slot = reinterpret_cast<F>(dlsym(handle_, name));
    if (*slot == nullptr) {
      error_ = std::string("no CUDA device: the CUDA driver lacks ") + name + " (driver too old?)";
    }
    return *slot != nullptr;
  }
  std::string Describe(CUresult r) {
    const char* text = nullptr;
    if (t_.cuGetErrorString != nullptr) t_.cuGetErrorString(r, &text);
    return text ? std::string(text) : "CUDA error " + std::to_string(r);
  }
  void Check(CUresult r, const char* what) {
    if (r != 0) throw Error(std::string("CUDA ") + what + " failed: " + Describe(r));
  }
  void Activate(int id) {
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
  }

  void* handle_ = nullptr;
  DriverTable t_{};
  int count_ = 0;
  std::string error_;
  std::mutex mu_;
  std::map<int, CUcontext> contexts_;
};

}  // namespace

DeviceAPI* CUDADeviceAPI() {
  static CUDADriverAPI* api = new CUDADriverAPI();  // never destroyed: the driver outlives exit
  return api;
}

}  // namespace runtime
}  // namespace tessera
