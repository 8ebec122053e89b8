// Runs one kernel of a compiled library on float32 vectors and prints the output, one value per
// line. Cross-built for aarch64 with the runtime and run under qemu by aarch64_test.
// Usage: aarch64_runner LIBRARY FUNCTION N   (x[i] = sin(0.3 i), y[i] = i; runs FUNCTION(x, y))
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "runtime/module.h"
#include "runtime/ndarray.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s LIBRARY FUNCTION N\n", argv[0]);
    return 2;
  }
  using tessera::runtime::NDArray;
  try {
    tessera::runtime::Module mod = tessera::runtime::Module::LoadFromFile(argv[1]);
    int n = std::atoi(argv[3]);
    NDArray x = NDArray::Empty({n}, DLDataType{kDLFloat, 32, 1}, DLDevice{kDLCPU, 0});
    NDArray y = NDArray::Empty({n}, DLDataType{kDLFloat, 32, 1}, DLDevice{kDLCPU, 0});
    for (int i = 0; i < n; ++i) {
      x.Data<float>()[i] = static_cast<float>(std::sin(0.3 * i));
      y.Data<float>()[i] = static_cast<float>(i);
    }
    mod[argv[2]](x.get(), y.get());
    for (int i = 0; i < n; ++i) std::printf("%.9g\n", y.Data<float>()[i]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
