/// \file
/// Unrolling: a `For` of kind Unrolled with a constant extent becomes copies of its body (at
/// most 1024 copies and 16384 IR nodes in all; beyond that unrolling, a hint, is skipped); under
/// `pragma auto_unroll_max_step = N`, serial loops with constant extents whose total number of
/// inner steps is at most N are unrolled too. Pragma annotations are removed.
#ifndef TESSERA_COMPILER_LOWER_UNROLL_H_
#define TESSERA_COMPILER_LOWER_UNROLL_H_

#include "compiler/ir/stmt.h"

namespace tessera {
namespace lower {

/// `body` with unrolled loops replicated.
ir::Stmt UnrollLoops(const ir::Stmt& body);

}  // namespace lower
}  // namespace tessera

#endif  // TESSERA_COMPILER_LOWER_UNROLL_H_
