/// \file
/// A direct interpreter of tensor expressions, independent of schedules and lowering: the
/// reference to check a schedule's compiled results against (part of the public API through
/// `compiler/tessera.h`; the tests use it too). Shapes must be constants. Values are
/// held as doubles (integers exactly up to 2^53); float32 results are rounded to float after
/// every operation, as compiled code does.
#ifndef TESSERA_COMPILER_TE_REFERENCE_EVALUATOR_H_
#define TESSERA_COMPILER_TE_REFERENCE_EVALUATOR_H_

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "compiler/te/tensor.h"

namespace tessera {
namespace te {

/// Evaluates compute tensors element by element from given placeholder contents.
class ReferenceEvaluator {
 public:
  /// Sets the contents of placeholder `t` (row-major; size must match its shape).
  void SetInput(const Tensor& t, std::vector<double> values);
  /// The contents of `t` (row-major), computing it and what it reads on first use. Throws
  /// `UserError` when a placeholder it needs has no contents.
  const std::vector<double>& Compute(const Tensor& t);
  /// The constant shape of `t` (throws `UserError` for symbolic shapes).
  static std::vector<int64_t> ConstShape(const Tensor& t);

 private:
  std::unordered_map<const ir::Object*, std::vector<double>> values_;
};

}  // namespace te
}  // namespace tessera

#endif  // TESSERA_COMPILER_TE_REFERENCE_EVALUATOR_H_
