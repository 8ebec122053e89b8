/// \file
/// Host workspaces of compiled kernels (buffers too large for the stack), kept per thread for the
/// next call. A model calls the same kernels on every run, and a fresh allocation of a megabyte or
/// more comes from the OS as new pages, faulted in and zeroed on every call: ResNet-18's Winograd
/// layers at 56x56 (two 1.8 MB workspaces) ran 3.6 ms a call in the model against 1.9 with the
/// blocks reused.
#ifndef TESSERA_RUNTIME_WORKSPACE_POOL_H_
#define TESSERA_RUNTIME_WORKSPACE_POOL_H_

#include <cstddef>
#include <vector>

namespace tessera {
namespace runtime {

/// A free list of 64-byte-aligned host blocks, used by one thread.
class WorkspacePool {
 public:
  /// A pool that keeps at most `max_cached_bytes` of free blocks.
  explicit WorkspacePool(size_t max_cached_bytes = size_t{256} << 20);
  ~WorkspacePool();
  WorkspacePool(const WorkspacePool&) = delete;
  WorkspacePool& operator=(const WorkspacePool&) = delete;

  /// A block of at least `nbytes`: the smallest free one that fits, else a new one. Throws
  /// `runtime::Error` when the system has no memory for it.
  void* Alloc(size_t nbytes);
  /// Takes back a block of this pool's `Alloc`, for a later call (to the system beyond the cap);
  /// any other pointer goes to the system.
  void Free(void* ptr);
  /// Bytes of free blocks kept.
  size_t cached_bytes() const { return cached_bytes_; }

  /// The calling thread's pool (workspaces are freed by the thread that allocated them).
  static WorkspacePool& ThreadLocal();

 private:
  struct Block {
    void* ptr;
    size_t bytes;
  };
  std::vector<Block> free_;  // cached for the next Alloc
  std::vector<Block> used_;  // handed out
  size_t cached_bytes_ = 0;
  size_t max_cached_bytes_;
};

}  // namespace runtime
}  // namespace tessera

#endif  // TESSERA_RUNTIME_WORKSPACE_POOL_H_
