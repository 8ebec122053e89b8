/// \file
/// Checks that GPU kernels fit the device: threads per block, block and grid dimensions, static
/// shared memory, and barriers that every thread of the block reaches.
#ifndef TESSERA_COMPILER_LOWER_VERIFY_GPU_H_
#define TESSERA_COMPILER_LOWER_VERIFY_GPU_H_

#include <cstdint>

#include "compiler/lower/split_host_device.h"

namespace tessera {
namespace lower {

/// What one thread block may use (the defaults hold for every CUDA GPU since sm_50).
struct GPULimits {
  int64_t max_threads_per_block = 1024;         ///< x * y * z threads
  int64_t max_block_xy = 1024;                  ///< threadIdx.x and threadIdx.y extents
  int64_t max_block_z = 64;                     ///< threadIdx.z extent
  int64_t max_grid_yz = 65535;                  ///< blockIdx.y and blockIdx.z extents
  int64_t max_shared_memory_bytes = 48 * 1024;  ///< static shared memory per block
};

/// Throws `UserError` naming the kernel and the limit when a kernel of `split` exceeds `limits`,
/// or when a barrier sits under a condition that depends on the thread index (some threads
/// would never reach it).
void VerifyGPUKernels(const HostDeviceSplit& split, const GPULimits& limits = {});

}  // namespace lower
}  // namespace tessera

#endif  // TESSERA_COMPILER_LOWER_VERIFY_GPU_H_
