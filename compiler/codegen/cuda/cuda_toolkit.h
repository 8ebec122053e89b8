/// \file
/// Finding the CUDA toolkit at run time, never at build time: `$TESSERA_CUDA_HOME` when set,
/// else the directory above the `nvcc` found on `$PATH` (`<dir of nvcc>/..`). The build needs
/// none of the toolkit's headers or libraries.
#ifndef TESSERA_COMPILER_CODEGEN_CUDA_CUDA_TOOLKIT_H_
#define TESSERA_COMPILER_CODEGEN_CUDA_CUDA_TOOLKIT_H_

#include <string>

namespace tessera {
namespace codegen {

/// Where the toolkit's pieces are; a piece that is missing is "" and `missing` says why.
struct CUDAToolkit {
  std::string home;     ///< the toolkit's root ("" when none was found)
  std::string nvrtc;    ///< path of libnvrtc.so* under home/lib64 (or home/lib)
  std::string ptxas;    ///< path of home/bin/ptxas
  std::string missing;  ///< "" when nvrtc was found; else what is missing and how to fix it
};

/// Looks the toolkit up (once per call; cheap). Never throws.
CUDAToolkit FindCUDAToolkit();

}  // namespace codegen
}  // namespace tessera

#endif  // TESSERA_COMPILER_CODEGEN_CUDA_CUDA_TOOLKIT_H_
