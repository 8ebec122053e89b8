/// \file
/// The vector registers of a target, for the CPU templates' register tiles.
#ifndef TESSERA_COMPILER_DRIVER_VECTOR_UNIT_H_
#define TESSERA_COMPILER_DRIVER_VECTOR_UNIT_H_

#include "compiler/driver/target.h"
#include "compiler/topi/vector_unit.h"

namespace tessera {

/// The float32 vector registers code compiled for `target` has: from the LLVM target's
/// architecture and CPU features (`-mcpu=native`: this machine's), 4 lanes × 16 for the C
/// target (what any C compiler vectorizes to) and for CUDA (which runs no CPU template).
/// Throws `UserError` for an LLVM triple or CPU that LLVM does not know.
topi::VectorUnit VectorUnitOf(const Target& target);

}  // namespace tessera

#endif  // TESSERA_COMPILER_DRIVER_VECTOR_UNIT_H_
