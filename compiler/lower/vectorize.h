/// \file
/// Vectorization: a `For` of kind Vectorized with a constant extent becomes straight-line vector
/// code (the loop variable becomes `Ramp(min, 1, lanes)`, scalars are broadcast; a width that is
/// not a power of two becomes consecutive vectors of its largest power-of-two factor). Loops whose
/// body cannot be vectorized safely (guards that depend on the lane, inner allocations, stores
/// that do not depend on the lane, ...) become serial loops, so the result is always correct.
#ifndef TESSERA_COMPILER_LOWER_VECTORIZE_H_
#define TESSERA_COMPILER_LOWER_VECTORIZE_H_

#include <string>
#include <vector>

#include "compiler/ir/stmt.h"

namespace tessera {
namespace lower {

/// `body` with every vectorized loop turned into vector code or a serial loop. When `notes` is
/// given, each loop left serial adds one line saying which loop and why.
ir::Stmt VectorizeLoops(const ir::Stmt& body, std::vector<std::string>* notes = nullptr);

}  // namespace lower
}  // namespace tessera

#endif  // TESSERA_COMPILER_LOWER_VECTORIZE_H_
