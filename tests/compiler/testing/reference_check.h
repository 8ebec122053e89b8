/// \file
/// Test helper: compiles a schedule, runs it on seeded random inputs and compares every computed
/// argument with the reference evaluator. The backend is a parameter so every code generator
/// can be checked the same way (the C backend is the default).
#ifndef TESSERA_TESTS_COMPILER_TESTING_REFERENCE_CHECK_H_
#define TESSERA_TESTS_COMPILER_TESTING_REFERENCE_CHECK_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compiler/ir/function.h"
#include "compiler/te/schedule.h"
#include "runtime/module.h"

namespace tessera {
namespace testing {

/// Turns a lowered function into a loaded module.
using Backend = std::function<runtime::Module(const ir::PrimFunc&)>;

/// The C backend (system C compiler).
Backend CBackend();

/// How `CheckAgainstReference` builds, fills and compares.
struct CheckOptions {
  Backend backend = CBackend();  ///< the code generator under test
  double rtol = 1e-4;            ///< relative tolerance
  double atol = 1e-4;            ///< absolute tolerance
  /// Replaces the random contents of input `arg` (an index into the argument list; `values` has
  /// one entry per element, row-major) before the run, e.g. to keep gather indices in range.
  std::function<void(size_t arg, std::vector<double>* values)> fill;
  /// Halos of the arguments, as `lower::LowerOptions::arg_halos`: each such argument lives inside
  /// a larger buffer, zeros around an input, garbage around an output, whose halo must come back
  /// as zeros.
  std::vector<std::vector<int64_t>> arg_halos;
  /// When set (one per argument), the reference evaluates these tensors instead: the same
  /// computation written another way (a convolution reading its halo as padding evaluates
  /// outside its input; the one with a padding stage does not).
  std::vector<te::Tensor> reference_args;
};

/// Options for kernels over int32 words of four bytes (the int8 templates): `backend`, exact
/// comparison, and every input filled with random 32-bit patterns (every byte value, sign bits
/// included), seeded by `seed` plus the argument's index.
CheckOptions ExactOnRandomWords(const Backend& backend, uint32_t seed);

/// Like below, with every knob in `options`.
std::string CheckAgainstReference(const te::Schedule& schedule, const std::vector<te::Tensor>& args,
                                  const std::string& name, uint64_t seed,
                                  const CheckOptions& options);

/// Lowers `schedule` as function `name`, builds it with `backend`, runs it on random inputs from
/// `seed` (every argument placed against a guard page, see guarded_array.h) and returns "" when
/// every non-placeholder argument matches the reference within `atol + rtol * |expected|`, else a
/// description of the first mismatch.
std::string CheckAgainstReference(const te::Schedule& schedule, const std::vector<te::Tensor>& args,
                                  const std::string& name, uint64_t seed,
                                  const Backend& backend = CBackend(), double rtol = 1e-4,
                                  double atol = 1e-4);

}  // namespace testing
}  // namespace tessera

#endif  // TESSERA_TESTS_COMPILER_TESTING_REFERENCE_CHECK_H_
