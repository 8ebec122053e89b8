// The non-parallel half of c_backend_api.h: last-error slot and workspace allocation.
#include <cstdlib>
#include <string>

#include "runtime/c_backend_api.h"
#include "runtime/device_api.h"
#include "runtime/error.h"
#include "runtime/workspace_pool.h"

namespace {
thread_local std::string last_error;
}  // namespace

extern "C" void TesseraAPISetLastError(const char* msg) { last_error = msg ? msg : ""; }

extern "C" const char* TesseraGetLastError(void) { return last_error.c_str(); }

extern "C" void* TesseraBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes, int,
                                              int) {
  DLDevice dev{static_cast<DLDeviceType>(device_type), device_id};
  try {
    if (device_type == kDLCPU) return tessera::runtime::WorkspacePool::ThreadLocal().Alloc(nbytes);
    return tessera::runtime::DeviceAPI::Get(dev)->Alloc(device_id, nbytes, 64);
  } catch (const std::exception& e) {
    last_error = std::string("workspace allocation of ") + std::to_string(nbytes) +
                 " bytes failed: " + e.what();
    return nullptr;
  }
}

extern "C" int TesseraBackendFreeWorkspace(int device_type, int device_id, void* ptr) {
  DLDevice dev{static_cast<DLDeviceType>(device_type), device_id};
  try {
    if (device_type == kDLCPU) {
      tessera::runtime::WorkspacePool::ThreadLocal().Free(ptr);
    } else {
      tessera::runtime::DeviceAPI::Get(dev)->Free(device_id, ptr);
    }
    return 0;
  } catch (const std::exception& e) {
    last_error = e.what();
    return -1;
  }
}
