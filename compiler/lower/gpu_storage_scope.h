/// \file
/// GPU storage scopes: a buffer allocated inside a GPU kernel (under a loop bound to a thread
/// index) lives in one thread's registers ("local") unless the schedule put it in "shared"
/// memory; a buffer allocated outside every kernel lives in the device's global memory
/// ("global"), allocated by the host around the launches.
#ifndef TESSERA_COMPILER_LOWER_GPU_STORAGE_SCOPE_H_
#define TESSERA_COMPILER_LOWER_GPU_STORAGE_SCOPE_H_

#include "compiler/ir/stmt.h"

namespace tessera {
namespace lower {

/// `body` with every allocation's scope set for a GPU. Throws `UserError` for a "shared" buffer
/// computed outside the loops bound to thread indices (no thread block owns it there).
ir::Stmt AssignGPUStorageScopes(const ir::Stmt& body);

}  // namespace lower
}  // namespace tessera

#endif  // TESSERA_COMPILER_LOWER_GPU_STORAGE_SCOPE_H_
