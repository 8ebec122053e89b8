/// \file
/// Schedule pieces shared by the CUDA templates: the cooperative fetch of a shared-memory stage
/// by all threads of a block, and the default schedule of a stage (one thread per output
/// element; what every kernel of a model without a GPU template runs).
#ifndef TESSERA_COMPILER_TOPI_GPU_SCHEDULE_H_
#define TESSERA_COMPILER_TOPI_GPU_SCHEDULE_H_

#include <cstdint>

#include "compiler/te/schedule.h"

namespace tessera {
namespace topi {

/// Schedules `stage` (a shared-memory copy attached inside the block's loops) so that a block of
/// `threads_z` × `threads_y` × `threads_x` threads (the block's shape: a different one would
/// guard the block's own loops) fills it together, each thread moving `vector` consecutive
/// elements (vectorized) per step.
void CooperativeFetch(te::Stage stage, int64_t threads_z, int64_t threads_y, int64_t threads_x,
                      int64_t vector);

/// The default GPU schedule of a stage: its spatial axes fused, one thread per output element,
/// `threads` per block (fewer for a smaller output; bound to blockIdx.x / threadIdx.x); the
/// reduction axes of a reduction run serially in each thread. The stage must have at least one
/// spatial axis and no loop transformation yet. Returns the loop bound to threadIdx.x.
ir::IterVar ScheduleInjectiveCUDA(te::Stage stage, int64_t threads = 256);

}  // namespace topi
}  // namespace tessera

#endif  // TESSERA_COMPILER_TOPI_GPU_SCHEDULE_H_
