/// \file
/// Saving and loading a dictionary of named arrays (model weights) as a versioned binary file.
///
/// Format (little-endian): magic "TSPARAMS", u32 version (1), u64 count, then per array:
/// u64 name length, name bytes, u8 dtype code, u8 bits, u16 lanes, u32 ndim, ndim x i64 shape,
/// u64 data bytes, data. Arrays are always stored from host memory.
#ifndef TESSERA_RUNTIME_PARAMS_H_
#define TESSERA_RUNTIME_PARAMS_H_

#include <map>
#include <string>
#include <string_view>

#include "runtime/ndarray.h"

namespace tessera {
namespace runtime {

/// Current version of the params format written by `SaveParams`.
constexpr uint32_t kParamsFormatVersion = 1;

/// Serialises named arrays (any device) into the params format.
std::string SaveParams(const std::map<std::string, NDArray>& params);

/// Parses the params format into host arrays. Throws `Error` naming `source` for a foreign file
/// ("not a Tessera params file"), a newer version, or truncation (naming the array it reached).
std::map<std::string, NDArray> LoadParams(std::string_view bytes,
                                          const std::string& source = "params");

/// Writes `SaveParams(params)` to `path`; throws `Error` when the file cannot be written.
void SaveParamsToFile(const std::map<std::string, NDArray>& params, const std::string& path);

/// Reads a params file written by `SaveParamsToFile`; throws `Error` naming `path`.
std::map<std::string, NDArray> LoadParamsFromFile(const std::string& path);

}  // namespace runtime
}  // namespace tessera

#endif  // TESSERA_RUNTIME_PARAMS_H_
