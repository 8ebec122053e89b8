/// \file
/// GPU schedules run on a CPU, for checking their values without a GPU: every loop bound to a
/// `blockIdx`/`threadIdx` becomes a serial loop. Each emulated thread then runs its whole share of
/// a cooperative (shared-memory) fetch itself before its reads, so the values are those the GPU
/// computes; what needs real threads (barriers, a shared tile covering the block) is not checked.
#ifndef TESSERA_COMPILER_LOWER_SERIALIZE_THREADS_H_
#define TESSERA_COMPILER_LOWER_SERIALIZE_THREADS_H_

#include "compiler/ir/function.h"

namespace tessera {
namespace lower {

/// `f` (lowered by `Lower`, the CPU pipeline) with its thread-bound loops made serial, ready for a
/// CPU code generator.
ir::PrimFunc SerializeThreadBindings(const ir::PrimFunc& f);

}  // namespace lower
}  // namespace tessera

#endif  // TESSERA_COMPILER_LOWER_SERIALIZE_THREADS_H_
