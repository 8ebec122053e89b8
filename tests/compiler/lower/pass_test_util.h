/// \file
/// Helpers for the per-pass tests: small statements built by hand over float32 buffers.
#ifndef TESSERA_TESTS_COMPILER_LOWER_PASS_TEST_UTIL_H_
#define TESSERA_TESTS_COMPILER_LOWER_PASS_TEST_UTIL_H_

#include <string>

#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/stmt.h"

namespace tessera {
namespace lower {
namespace testing {

/// float32 element type.
inline ir::DataType F32() { return ir::DataType::Float(32); }
/// int32 index type.
inline ir::DataType I32() { return ir::DataType::Int(32); }
/// A handle variable naming a float32 buffer.
inline ir::Var Buffer(const std::string& name) { return ir::Var(name, ir::DataType::Handle()); }
/// `buffer[index]` as float32.
inline ir::Expr At(const ir::Var& buffer, ir::Expr index) {
  return ir::Load(F32(), buffer, std::move(index));
}
/// A serial loop `for v in [0, extent)`.
inline ir::Stmt Loop(const ir::Var& v, int extent, ir::Stmt body,
                     ir::ForKind kind = ir::ForKind::kSerial) {
  return ir::For(v, ir::IntImm(I32(), 0), ir::IntImm(I32(), extent), kind, std::move(body));
}

}  // namespace testing
}  // namespace lower
}  // namespace tessera

#endif  // TESSERA_TESTS_COMPILER_LOWER_PASS_TEST_UTIL_H_
