// Test helper: compiles tests/runtime/testdata/kernels.c into a shared library with the system
// C compiler, once per test binary.
#ifndef TESSERA_TESTS_RUNTIME_KERNEL_LIBRARY_H_
#define TESSERA_TESTS_RUNTIME_KERNEL_LIBRARY_H_

#include <string>

namespace tessera {
namespace testing {

/// Path of the compiled kernels library (built on first use in the test's temp dir).
std::string KernelLibraryPath();

/// Writes `contents` to a fresh file in the test's temp dir and returns its path.
std::string WriteTempFile(const std::string& name, const std::string& contents);

}  // namespace testing
}  // namespace tessera

#endif  // TESSERA_TESTS_RUNTIME_KERNEL_LIBRARY_H_
