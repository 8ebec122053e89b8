// The whole of a file as bytes (private to the runtime: its loaders of graphs, parameters, .npy
// files and kernel libraries each say in their own words what could not be read).
#ifndef TESSERA_RUNTIME_READ_FILE_H_
#define TESSERA_RUNTIME_READ_FILE_H_

#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace tessera {
namespace runtime {

// The bytes of the file at `path`, or nullopt when it cannot be opened or read.
inline std::optional<std::string> ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in.good()) return std::nullopt;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return bytes.str();
}

}  // namespace runtime
}  // namespace tessera

#endif  // TESSERA_RUNTIME_READ_FILE_H_
