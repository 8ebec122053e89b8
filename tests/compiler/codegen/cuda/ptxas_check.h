/// \file
/// Assembling generated PTX with the CUDA toolkit's ptxas, for the tests that check GPU code
/// without a GPU.
#ifndef TESSERA_TESTS_COMPILER_CODEGEN_CUDA_PTXAS_CHECK_H_
#define TESSERA_TESTS_COMPILER_CODEGEN_CUDA_PTXAS_CHECK_H_

#include <string>

namespace tessera {
namespace testing {

/// Assembles `ptx` for `arch` ("sm_90") with the toolkit's ptxas: "" when it assembles, else
/// ptxas's exit status and output. Where the toolkit has no ptxas, "" with a note on stderr.
std::string AssembleWithPtxas(const std::string& ptx, const std::string& arch);

}  // namespace testing
}  // namespace tessera

#endif  // TESSERA_TESTS_COMPILER_CODEGEN_CUDA_PTXAS_CHECK_H_
