/// \file
/// Test helper: the LLVM code generator as a `testing::Backend` for `CheckAgainstReference`, so
/// template tests check the code the tuner and the model builds run, not only the C backend's.
#ifndef TESSERA_TESTS_COMPILER_TESTING_LLVM_BACKEND_H_
#define TESSERA_TESTS_COMPILER_TESTING_LLVM_BACKEND_H_

#include <string>

#include "tests/compiler/testing/reference_check.h"

namespace tessera {
namespace testing {

/// Builds each lowered function in-process with the LLVM backend for `target` (by default this
/// machine's CPU, whose vector width the x86 templates are tuned for).
Backend LLVMBackend(const std::string& target = "llvm -mcpu=native");

}  // namespace testing
}  // namespace tessera

#endif  // TESSERA_TESTS_COMPILER_TESTING_LLVM_BACKEND_H_
