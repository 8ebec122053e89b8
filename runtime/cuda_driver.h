/// \file
/// Private to runtime/: the CUDA device API, backed by libcuda.so.1 loaded with dlopen.
#ifndef TESSERA_RUNTIME_CUDA_DRIVER_H_
#define TESSERA_RUNTIME_CUDA_DRIVER_H_

#include "runtime/device_api.h"

namespace tessera {
namespace runtime {

/// The CUDA device API. Throws `Error` "no CUDA device: ..." when the driver cannot be loaded or
/// initialised; the first failure is remembered so later calls fail fast with the same message.
DeviceAPI* CUDADeviceAPI();

}  // namespace runtime
}  // namespace tessera

#endif  // TESSERA_RUNTIME_CUDA_DRIVER_H_
