/// \file
/// The CUDA module: PTX kernels plus, for each compiled function, a host launcher that checks
/// its tensor arguments (on a CUDA device, dtype, shape, compact), allocates the intermediate
/// buffers in device memory and launches the kernels in order through the CUDA driver (loaded
/// with dlopen). The PTX is loaded on the first call, so a module can be built and inspected
/// (`GetSource("ptx")`, `GetSource("cuda")`) on a machine without a GPU; calling it there throws
/// `Error` "no CUDA device: ...". It is a library of its own (`//runtime:cuda_module`), outside
/// the size-tracked CPU runtime.
#ifndef TESSERA_RUNTIME_CUDA_MODULE_H_
#define TESSERA_RUNTIME_CUDA_MODULE_H_

#include <dlpack/dlpack.h>

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/module.h"

namespace tessera {
namespace runtime {

/// One tensor argument of a CUDA function.
struct CUDAArgSpec {
  DLDataType dtype;            ///< element type
  std::vector<int64_t> shape;  ///< exact shape (compact, row-major)
};

/// One kernel launch of a CUDA function.
struct CUDALaunch {
  std::string kernel;             ///< the kernel's name in the PTX
  std::array<uint32_t, 3> grid;   ///< blocks in x, y, z
  std::array<uint32_t, 3> block;  ///< threads per block in x, y, z
  /// The kernel's pointer parameters: i < number of arguments is argument i's data, else the
  /// intermediate buffer i - number of arguments.
  std::vector<int> buffers;
};

/// The host side of one compiled function.
struct CUDAHostFunction {
  std::string name;                          ///< the function's name
  std::vector<CUDAArgSpec> args;             ///< its tensor arguments
  std::vector<uint64_t> intermediate_bytes;  ///< device buffers it allocates per call
  std::vector<CUDALaunch> launches;          ///< in order
};

/// A module of type "cuda" running `functions` from `ptx`. `sources` maps formats to text for
/// `GetSource` ("ptx" is always there; the compiler adds "cuda").
Module CUDAModuleCreate(const std::string& ptx, std::vector<CUDAHostFunction> functions,
                        std::map<std::string, std::string> sources = {});

/// Loads a module written by the "cuda" module's `export_library(path)` (its launchers and PTX,
/// in a text format of its own: `tessera-cuda-module 1`). Throws `Error` naming `path` when it
/// is unreadable or not such a file.
Module LoadCUDAModule(const std::string& path);

/// `LoadCUDAModule` of the file's contents `text` (e.g. an artifact's kernels section); errors name
/// `source`. Needs no device: the PTX is loaded on the first call.
Module ParseCUDAModule(std::string_view text, const std::string& source);

/// True when `bytes` start like a file of the "cuda" module's `export_library`.
bool IsCUDAModuleText(std::string_view bytes);

}  // namespace runtime
}  // namespace tessera

#endif  // TESSERA_RUNTIME_CUDA_MODULE_H_
