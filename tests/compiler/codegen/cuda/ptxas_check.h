/// \file
/// Assembling generated PTX with the CUDA toolkit's ptxas, for the tests that check GPU code
/// without a GPU; and when those tests may skip.
#ifndef TESSERA_TESTS_COMPILER_CODEGEN_CUDA_PTXAS_CHECK_H_
#define TESSERA_TESTS_COMPILER_CODEGEN_CUDA_PTXAS_CHECK_H_

#include <string>

namespace tessera {
namespace testing {

/// Assembles `ptx` for `arch` ("sm_90") with the toolkit's ptxas: "" when it assembles, else
/// ptxas's exit status and output. Where the toolkit has no ptxas, "" with a note on stderr.
std::string AssembleWithPtxas(const std::string& ptx, const std::string& arch);

/// Why a test needing NVRTC may skip: "" where a CUDA toolkit is found (TESSERA_CUDA_HOME, or an
/// nvcc on PATH), else what was looked for. A toolkit that is found but whose NVRTC cannot be
/// used is no reason to skip: the test then fails on `codegen::NVRTCAvailable`, naming why.
std::string NoCUDAToolkit();

}  // namespace testing
}  // namespace tessera

#endif  // TESSERA_TESTS_COMPILER_CODEGEN_CUDA_PTXAS_CHECK_H_
