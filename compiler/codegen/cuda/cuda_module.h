/// \file
/// Building CUDA modules: the device kernels of `lower::LowerForGPU` become CUDA C
/// (`GenerateCUDA`), compiled to PTX with NVRTC; the host functions become the launchers of a
/// `runtime` CUDA module (`runtime/cuda_module.h`). `GetSource("cuda")` and `GetSource("ptx")`
/// return the two texts.
#ifndef TESSERA_COMPILER_CODEGEN_CUDA_CUDA_MODULE_H_
#define TESSERA_COMPILER_CODEGEN_CUDA_CUDA_MODULE_H_

#include <string>
#include <vector>

#include "compiler/ir/function.h"
#include "runtime/cuda_module.h"
#include "runtime/module.h"

namespace tessera {
namespace codegen {

/// How to build a CUDA module.
struct CUDABuildOptions {
  std::string arch;        ///< "sm_90"; "" = NVRTC's default architecture
  bool fast_math = false;  ///< fast math intrinsics and NVRTC's --use_fast_math
};

/// The launcher of host function `host` (from the host/device split): its argument specs from
/// the `arg<i>.dtype`/`arg<i>.shape` attributes, its device allocations and its launches.
/// Throws `InternalError` for a host body that is not allocations and launches.
runtime::CUDAHostFunction MakeCUDAHostFunction(const ir::PrimFunc& host);

/// A "cuda" module running `hosts`, whose launches call `kernels`. Throws `ConfigError` when NVRTC
/// is missing (naming what and where it looked), `UserError` for IR a GPU cannot run.
runtime::Module BuildCUDA(const std::vector<ir::PrimFunc>& hosts,
                          const std::vector<ir::PrimFunc>& kernels,
                          const CUDABuildOptions& options);

}  // namespace codegen
}  // namespace tessera

#endif  // TESSERA_COMPILER_CODEGEN_CUDA_CUDA_MODULE_H_
