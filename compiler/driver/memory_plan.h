/// \file
/// Private to `build_model`: memory planning of an execution graph. Logical buffers (a tensor
/// and the free reshapes that alias it) share storage when their lifetimes over the kernel
/// calls do not overlap; model inputs and outputs keep storage of their own.
#ifndef TESSERA_COMPILER_DRIVER_MEMORY_PLAN_H_
#define TESSERA_COMPILER_DRIVER_MEMORY_PLAN_H_

#include <cstdint>
#include <vector>

#include "runtime/exec_graph.h"

namespace tessera {
namespace driver {

/// What planning gave.
struct MemoryPlan {
  int64_t planned_bytes = 0;    ///< total storage after reuse
  int64_t unplanned_bytes = 0;  ///< total without reuse
};

/// Assigns `graph.storage_bytes` and every non-parameter tensor's `storage`, from each tensor's
/// logical buffer (`tensor_buffer`, -1 for parameters) and the buffers' sizes.
MemoryPlan PlanMemory(runtime::ExecGraph& graph, const std::vector<int>& tensor_buffer,
                      const std::vector<int64_t>& buffer_bytes);

}  // namespace driver
}  // namespace tessera

#endif  // TESSERA_COMPILER_DRIVER_MEMORY_PLAN_H_
