/// \file
/// Structural equality and hashing of IR trees (expressions, statements, functions, and any
/// node that lists its fields, such as te tensors). Variables bound inside the trees (loop
/// variables, lets, allocations, parameters) are compared by position; free variables are equal
/// only when they are the same variable, unless `map_free_vars` is set.
#ifndef TESSERA_COMPILER_IR_STRUCTURAL_EQUAL_H_
#define TESSERA_COMPILER_IR_STRUCTURAL_EQUAL_H_

#include <cstddef>

#include "compiler/ir/object.h"

namespace tessera {
namespace ir {

/// True when `a` and `b` have the same structure. With `map_free_vars`, free variables of `a`
/// may stand for free variables of `b` (consistently, one to one).
bool StructuralEqual(const ObjectRef& a, const ObjectRef& b, bool map_free_vars = false);

/// A hash consistent with `StructuralEqual(a, b, /*map_free_vars=*/true)`: variables hash by the
/// order in which they are first met, so renaming variables does not change it.
size_t StructuralHash(const ObjectRef& node);

}  // namespace ir
}  // namespace tessera

#endif  // TESSERA_COMPILER_IR_STRUCTURAL_EQUAL_H_
