/// \file
/// Private to runtime/: the CUDA driver API, loaded from libcuda.so.1 with dlopen. The few entry
/// points used are declared here by hand with their documented signatures, so the runtime builds
/// without the CUDA toolkit and never links libcuda.
#ifndef TESSERA_RUNTIME_CUDA_DRIVER_H_
#define TESSERA_RUNTIME_CUDA_DRIVER_H_

#include <cstddef>

#include "runtime/device_api.h"

namespace tessera {
namespace runtime {

using CUresult = int;                    ///< 0 is CUDA_SUCCESS
using CUdevice = int;                    ///< a device ordinal
using CUcontext = void*;                 ///< an opaque context
using CUmodule = void*;                  ///< an opaque loaded module
using CUfunction = void*;                ///< an opaque kernel
using CUstream = void*;                  ///< an opaque stream (null: the default stream)
using CUevent = void*;                   ///< an opaque event
using CUdeviceptr = unsigned long long;  ///< NOLINT(runtime/int): the driver's own type

/// The driver's entry points that Tessera calls.
struct CUDADriverTable {
  CUresult (*cuInit)(unsigned int);                                     ///< driver API
  CUresult (*cuDeviceGetCount)(int*);                                   ///< driver API
  CUresult (*cuDeviceGet)(CUdevice*, int);                              ///< driver API
  CUresult (*cuDeviceGetName)(char*, int, CUdevice);                    ///< driver API
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice);                ///< driver API
  CUresult (*cuDeviceTotalMem)(size_t*, CUdevice);                      ///< cuDeviceTotalMem_v2
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);           ///< driver API
  CUresult (*cuCtxSetCurrent)(CUcontext);                               ///< driver API
  CUresult (*cuCtxSynchronize)();                                       ///< driver API
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t);                         ///< cuMemAlloc_v2
  CUresult (*cuMemFree)(CUdeviceptr);                                   ///< cuMemFree_v2
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t);           ///< cuMemcpyHtoD_v2
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t);                 ///< cuMemcpyDtoH_v2
  CUresult (*cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);           ///< cuMemcpyDtoD_v2
  CUresult (*cuGetErrorString)(CUresult, const char**);                 ///< driver API
  CUresult (*cuModuleLoadData)(CUmodule*, const void*);                 ///< PTX or cubin
  CUresult (*cuModuleUnload)(CUmodule);                                 ///< driver API
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);  ///< driver API
  /// Launches `f` on grid × block with `shared` dynamic shared bytes and `params` pointers.
  CUresult (*cuLaunchKernel)(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                             unsigned by, unsigned bz, unsigned shared, CUstream stream,
                             void** params, void** extra);
  CUresult (*cuEventCreate)(CUevent*, unsigned int);         ///< driver API
  CUresult (*cuEventRecord)(CUevent, CUstream);              ///< driver API
  CUresult (*cuEventSynchronize)(CUevent);                   ///< driver API
  CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent);  ///< milliseconds between events
  CUresult (*cuEventDestroy)(CUevent);                       ///< cuEventDestroy_v2
  CUresult (*cuStreamCreate)(CUstream*, unsigned int);       ///< driver API
  CUresult (*cuStreamDestroy)(CUstream);                     ///< cuStreamDestroy_v2
  CUresult (*cuStreamSynchronize)(CUstream);                 ///< driver API
  /// cuMemcpyHtoDAsync_v2
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void*, size_t, CUstream);
  /// cuMemcpyDtoHAsync_v2
  CUresult (*cuMemcpyDtoHAsync)(void*, CUdeviceptr, size_t, CUstream);
};

/// The CUDA device API. Throws `Error` "no CUDA device: ..." when the driver cannot be loaded or
/// initialised; the first failure is remembered so later calls fail fast with the same message.
DeviceAPI* CUDADeviceAPI();

/// Makes device `device_id`'s primary context current on this thread and returns the driver's
/// table. Throws `Error` "no CUDA device: ..." as `CUDADeviceAPI` does.
const CUDADriverTable& CUDADriverActivate(int device_id);

/// Throws `Error` "CUDA `what` failed: <driver's message>" unless `result` is success.
void CUDACheck(CUresult result, const char* what);

}  // namespace runtime
}  // namespace tessera

#endif  // TESSERA_RUNTIME_CUDA_DRIVER_H_
