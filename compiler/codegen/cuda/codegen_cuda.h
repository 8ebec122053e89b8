/// \file
/// The CUDA C code generator: readable CUDA C for the device kernels of `lower::LowerForGPU`.
/// Each kernel is `extern "C" __global__` with `__launch_bounds__` of its block size, buffers
/// are typed `__restrict__` pointers, shared buffers `__shared__` arrays, and unit-stride vector
/// accesses of two or four 32-bit lanes at a provably aligned index use CUDA's vector types
/// (`float4`, ...). The source needs no header (NVRTC compiles it as is).
#ifndef TESSERA_COMPILER_CODEGEN_CUDA_CODEGEN_CUDA_H_
#define TESSERA_COMPILER_CODEGEN_CUDA_CODEGEN_CUDA_H_

#include <string>
#include <vector>

#include "compiler/ir/function.h"

namespace tessera {
namespace codegen {

/// Knobs of CUDA code generation.
struct CUDACodeGenOptions {
  /// Use the fast, less accurate intrinsics (`__expf`, `__logf`, `__powf`, `__fdividef`) for
  /// float32 math; only when the target asks (`cuda -fast-math=1`).
  bool fast_math = false;
};

/// CUDA C source defining every kernel of `kernels`. Throws `UserError` for IR a GPU cannot run
/// (a `parallel` loop, a type CUDA lacks).
std::string GenerateCUDA(const std::vector<ir::PrimFunc>& kernels,
                         const CUDACodeGenOptions& options = {});

}  // namespace codegen
}  // namespace tessera

#endif  // TESSERA_COMPILER_CODEGEN_CUDA_CODEGEN_CUDA_H_
