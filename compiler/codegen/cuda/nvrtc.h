/// \file
/// CUDA C → PTX with NVRTC, loaded with `dlopen` from the toolkit that `FindCUDAToolkit` finds,
/// so the compiler builds and runs where NVRTC is absent and says so when it is needed.
#ifndef TESSERA_COMPILER_CODEGEN_CUDA_NVRTC_H_
#define TESSERA_COMPILER_CODEGEN_CUDA_NVRTC_H_

#include <string>

namespace tessera {
namespace codegen {

/// True when NVRTC can be loaded; otherwise `why` (if given) says what is missing.
bool NVRTCAvailable(std::string* why = nullptr);

/// Compiles `source` for `arch` ("sm_90"; "" = NVRTC's default), optimized, plus
/// `--use_fast_math` when asked, and returns the PTX. Throws `ConfigError` naming what is
/// missing when NVRTC cannot be loaded, and `InternalError` with NVRTC's log when the source
/// does not compile (generated code must).
std::string CompileToPTX(const std::string& source, const std::string& arch, bool fast_math,
                         const std::string& name = "tessera.cu");

}  // namespace codegen
}  // namespace tessera

#endif  // TESSERA_COMPILER_CODEGEN_CUDA_NVRTC_H_
