#include "tests/runtime/kernel_library.h"

#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace tessera {
namespace testing {
namespace {

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir ? dir : "/tmp";
}

}  // namespace

std::string WriteTempFile(const std::string& name, const std::string& contents) {
  std::string path = TempDir() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
  return path;
}

std::string KernelLibraryPath() {
  static const std::string path = [] {
    // Runfiles: the test runs in the workspace root of its runfiles tree.
    std::string out = TempDir() + "/kernels.so";
    std::string cmd =
        "cc -O2 -shared -fPIC -I. -o " + out + " tests/runtime/testdata/kernels.c 2>&1";
    if (std::system(cmd.c_str()) != 0) throw std::runtime_error("compiling kernels.c failed");
    return out;
  }();
  return path;
}

}  // namespace testing
}  // namespace tessera
