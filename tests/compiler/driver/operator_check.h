/// \file
/// Test helper: builds a schedule, runs it on seeded random inputs, and compares every output
/// with the reference evaluator.
#ifndef TESSERA_TESTS_COMPILER_DRIVER_OPERATOR_CHECK_H_
#define TESSERA_TESTS_COMPILER_DRIVER_OPERATOR_CHECK_H_

#include <string>
#include <vector>

#include "compiler/tessera.h"

namespace tessera {
namespace testing {

/// Arrays for `tensors` (float32 or int32, constant shapes); inputs get seeded random values.
std::vector<runtime::NDArray> MakeArrays(const std::vector<te::Tensor>& tensors, int seed);

/// Calls `function` with one array per argument.
void CallWithArrays(const runtime::PackedFunc& function,
                    const std::vector<runtime::NDArray>& arrays);

/// Builds `schedule` for `target` as `name` with `inputs` then `outputs` as arguments, runs it,
/// and expects every output to match the reference evaluator within `tolerance` (relative to
/// the magnitude of the expected value, at least 1).
void ExpectMatchesReference(const te::Schedule& schedule, const std::vector<te::Tensor>& inputs,
                            const std::vector<te::Tensor>& outputs, const std::string& name,
                            const std::string& target = "llvm", double tolerance = 1e-4);

/// Same comparison for an already built module.
void ExpectModuleMatchesReference(const runtime::Module& module,
                                  const std::vector<te::Tensor>& inputs,
                                  const std::vector<te::Tensor>& outputs, const std::string& name,
                                  double tolerance = 1e-4);

}  // namespace testing
}  // namespace tessera

#endif  // TESSERA_TESTS_COMPILER_DRIVER_OPERATOR_CHECK_H_
