/// \file
/// Reading and writing NumPy `.npy` files (format versions 1.0-3.0, C order, little-endian
/// float32, float64, int64, int32, uint8 and bool, which is read as uint8 like compiled models
/// store it), the format users keep model inputs in.
#ifndef TESSERA_RUNTIME_NPY_H_
#define TESSERA_RUNTIME_NPY_H_

#include <string>

#include "runtime/ndarray.h"

namespace tessera {
namespace runtime {

/// Reads `path` into a host array. Throws `Error` naming the file for a missing or truncated
/// file, a header that is not `.npy`, Fortran order, or an unsupported dtype.
NDArray LoadNpy(const std::string& path);

/// Writes a host array to `path` (format 1.0); throws `Error` when it cannot.
void SaveNpy(const std::string& path, const NDArray& array);

}  // namespace runtime
}  // namespace tessera

#endif  // TESSERA_RUNTIME_NPY_H_
