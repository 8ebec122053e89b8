/// \file
/// Statement simplification: simplifies every expression knowing the ranges of the enclosing
/// loops, drops guards that always hold (and code that never runs), replaces one-iteration
/// loops by their body and removes empty statements.
#ifndef TESSERA_COMPILER_LOWER_SIMPLIFY_H_
#define TESSERA_COMPILER_LOWER_SIMPLIFY_H_

#include "compiler/ir/stmt.h"

namespace tessera {
namespace lower {

/// The simplified statement.
ir::Stmt Simplify(const ir::Stmt& body);

}  // namespace lower
}  // namespace tessera

#endif  // TESSERA_COMPILER_LOWER_SIMPLIFY_H_
