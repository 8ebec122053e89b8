/// \file
/// What the CUDA driver says about this machine's GPUs, for a device server to report to its
/// tracker. Reads the driver opened with dlopen (`runtime/cuda_driver.h`); creates no context, so
/// asking costs no GPU memory.
#ifndef TESSERA_RUNTIME_CUDA_DEVICES_H_
#define TESSERA_RUNTIME_CUDA_DEVICES_H_

#include <cstdint>
#include <string>
#include <vector>

namespace tessera {
namespace runtime {

/// One GPU as the driver describes it.
struct CUDADeviceProperties {
  std::string name;          ///< e.g. "NVIDIA H100 80GB HBM3"
  int major = 0;             ///< compute capability, major part
  int minor = 0;             ///< compute capability, minor part
  int64_t memory_bytes = 0;  ///< total device memory
  /// The compute capability as a target spells it: "sm_90" for 9.0.
  std::string arch() const { return "sm_" + std::to_string(major * 10 + minor); }
};

/// The GPUs in driver order (device 0 first). Empty, without an error, where there is no driver or
/// no device: a CPU-only server reports zero GPUs. Never throws.
std::vector<CUDADeviceProperties> ListCUDADevices();

/// The compute capability of GPU `device_id` as major * 10 + minor (90 for sm_90); 0 where there
/// is no such GPU or no driver. Never throws.
int CUDAComputeCapability(int device_id);

}  // namespace runtime
}  // namespace tessera

#endif  // TESSERA_RUNTIME_CUDA_DEVICES_H_
