#include <cstdlib>
#include <cstring>
#include <thread>

#include "runtime/cuda_driver.h"
#include "runtime/data_type.h"
#include "runtime/device_api.h"
#include "runtime/error.h"

namespace tessera {
namespace runtime {
namespace {

class CPUDeviceAPI final : public DeviceAPI {
 public:
  void* Alloc(int, size_t nbytes, size_t alignment) override {
    void* ptr = nullptr;
    if (alignment < sizeof(void*)) alignment = sizeof(void*);
    // posix_memalign with size 0 may return NULL; keep every allocation a real pointer.
    if (posix_memalign(&ptr, alignment, nbytes == 0 ? alignment : nbytes) != 0) {
      throw Error("out of host memory: cannot allocate " + std::to_string(nbytes) + " bytes");
    }
    return ptr;
  }
  void Free(int, void* ptr) override { std::free(ptr); }
  void CopyFromHost(int, void* dst, const void* src, size_t n) override {
    std::memcpy(dst, src, n);
  }
  void CopyToHost(int, void* dst, const void* src, size_t n) override { std::memcpy(dst, src, n); }
  void CopyWithinDevice(int, void* dst, const void* src, size_t n) override {
    std::memmove(dst, src, n);
  }
  void Synchronize(int) override {}
  int DeviceCount() override { return 1; }
};

}  // namespace

DeviceAPI* DeviceAPI::Get(DLDevice dev) {
  switch (dev.device_type) {
    case kDLCPU:
    case kDLCUDAHost: {
      static CPUDeviceAPI cpu;
      TESSERA_CHECK(dev.device_id == 0 || dev.device_type == kDLCUDAHost)
          << "unsupported device " << DeviceToString(dev) << ": the CPU is device cpu:0";
      return &cpu;
    }
    case kDLCUDA: {
      DeviceAPI* cuda = CUDADeviceAPI();
      int count = cuda->DeviceCount();
      TESSERA_CHECK(dev.device_id >= 0 && dev.device_id < count)
          << "no CUDA device: " << DeviceToString(dev) << " does not exist (" << count
          << " CUDA device(s) present)";
      return cuda;
    }
    default:
      throw Error("unsupported device " + DeviceToString(dev) + ": Tessera supports cpu and cuda");
  }
}

bool DeviceAPI::Exists(DLDevice dev) {
  try {
    Get(dev);
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace runtime
}  // namespace tessera
