/// \file
/// Packed-API functions written directly in the IR (no lowering), shared by the LLVM backend's
/// tests: a builder for the argument-unpacking prologue and two small kernels.
#ifndef TESSERA_TESTS_COMPILER_CODEGEN_LLVM_TEST_KERNELS_H_
#define TESSERA_TESTS_COMPILER_CODEGEN_LLVM_TEST_KERNELS_H_

#include <string>
#include <vector>

#include "compiler/ir/function.h"

namespace tessera {
namespace codegen {
namespace testing {

/// Builds a packed-API function over 1-D tensors: checks the argument count, binds each tensor's
/// data handle to `data(i)` and the first tensor's length to `n()`.
class PackedFunction {
 public:
  /// A function `name` taking `num_tensors` tensors.
  PackedFunction(std::string name, int num_tensors);
  /// The data handle of tensor `i`.
  const ir::Var& data(int i) const { return data_[i]; }
  /// The length of tensor 0 (int32).
  const ir::Var& n() const { return n_; }
  /// The function with `body` after the prologue.
  ir::PrimFunc Make(ir::Stmt body) const;

 private:
  std::string name_;
  ir::Var args_, codes_, num_args_, n_;
  std::vector<ir::Var> tensors_, data_;
};

/// "axpy"(x, y): y[i] = 1.5 * x[i] + y[i], float32, in a parallel loop.
ir::PrimFunc ParallelAxpy();

/// "vexp"(x, y): y = exp(x) on blocks of 8 lanes, tanh(x) on the scalar tail, float32.
ir::PrimFunc VectorExpWithTail();

}  // namespace testing
}  // namespace codegen
}  // namespace tessera

#endif  // TESSERA_TESTS_COMPILER_CODEGEN_LLVM_TEST_KERNELS_H_
