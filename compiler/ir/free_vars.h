/// \file
/// The free variables of a statement: those it uses but does not define (loop variables, lets
/// and allocations inside it are defined). Code generators pass them into outlined code
/// (parallel-loop closures, GPU kernel parameters).
#ifndef TESSERA_COMPILER_IR_FREE_VARS_H_
#define TESSERA_COMPILER_IR_FREE_VARS_H_

#include <vector>

#include "compiler/ir/stmt.h"

namespace tessera {
namespace ir {

/// Variables used in `s` but defined outside it, in order of first use.
std::vector<Var> FreeVars(const Stmt& s);

}  // namespace ir
}  // namespace tessera

#endif  // TESSERA_COMPILER_IR_FREE_VARS_H_
