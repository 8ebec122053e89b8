/// \file
/// The vector registers and L2 of a target, for the CPU templates' tiles and blocks, and its byte
/// dot product (the int8 templates).
#ifndef TESSERA_COMPILER_DRIVER_VECTOR_UNIT_H_
#define TESSERA_COMPILER_DRIVER_VECTOR_UNIT_H_

#include "compiler/driver/target.h"
#include "compiler/topi/vector_unit.h"

namespace tessera {

/// The float32 vector registers code compiled for `target` has: from the LLVM target's
/// architecture and CPU features (`-mcpu=native`: this machine's), 4 lanes × 16 for the C
/// target (what any C compiler vectorizes to) and for CUDA (which runs no CPU template); with
/// the L2 bytes of its core (`HardwareOf`: 1 MB on x86, by `-mcpu` on Arm).
/// Throws `UserError` for an LLVM triple or CPU that LLVM does not know.
topi::VectorUnit VectorUnitOf(const Target& target);

/// True when code compiled for `target` multiplies bytes four to a 32-bit lane and adds them in
/// one instruction (x86 AVX512-VNNI or AVX-VNNI `vpdpbusd`, Arm i8mm's `usdot`, or Arm dotprod's
/// `sdot`, which takes unsigned bytes with one more `sdot` for their offset), which the int8
/// templates are built around; without it their fallback is slower than the float32 templates.
bool HasByteDotProduct(const Target& target);

}  // namespace tessera

#endif  // TESSERA_COMPILER_DRIVER_VECTOR_UNIT_H_
