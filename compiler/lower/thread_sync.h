/// \file
/// Barriers for shared memory: inside a GPU kernel, a `tessera.syncthreads()` goes between
/// statements that write a shared buffer and later statements that read it, and, inside a loop,
/// before a write of a buffer that the loop's previous iteration read (so no thread overwrites
/// data another thread still reads).
#ifndef TESSERA_COMPILER_LOWER_THREAD_SYNC_H_
#define TESSERA_COMPILER_LOWER_THREAD_SYNC_H_

#include "compiler/ir/stmt.h"

namespace tessera {
namespace lower {

/// `body` (after `AssignGPUStorageScopes`) with barriers around shared-memory traffic.
ir::Stmt InsertSharedMemoryBarriers(const ir::Stmt& body);

/// The barrier statement, `Evaluate(tessera.syncthreads())`.
ir::Stmt SyncThreads();

}  // namespace lower
}  // namespace tessera

#endif  // TESSERA_COMPILER_LOWER_THREAD_SYNC_H_
