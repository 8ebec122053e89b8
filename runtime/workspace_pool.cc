#include "runtime/workspace_pool.h"

#include <cstdlib>
#include <string>

#include "runtime/error.h"

namespace tessera {
namespace runtime {

WorkspacePool::WorkspacePool(size_t max_cached_bytes) : max_cached_bytes_(max_cached_bytes) {}

WorkspacePool::~WorkspacePool() {
  for (const Block& b : free_) std::free(b.ptr);
  for (const Block& b : used_) std::free(b.ptr);  // a kernel that never freed: the thread ends
}

void* WorkspacePool::Alloc(size_t nbytes) {
  if (nbytes == 0) nbytes = 64;  // posix_memalign may return null for 0: keep a real pointer
  size_t best = free_.size();
  for (size_t i = 0; i < free_.size(); ++i) {
    if (free_[i].bytes >= nbytes && (best == free_.size() || free_[i].bytes < free_[best].bytes)) {
      best = i;
    }
  }
  Block block{nullptr, nbytes};
  if (best < free_.size()) {
    block = free_[best];
    free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(best));
    cached_bytes_ -= block.bytes;
  } else if (posix_memalign(&block.ptr, 64, nbytes) != 0) {
    throw Error("out of host memory: cannot allocate a workspace of " + std::to_string(nbytes) +
                " bytes");
  }
  used_.push_back(block);
  return block.ptr;
}

void WorkspacePool::Free(void* ptr) {
  for (size_t i = used_.size(); i-- > 0;) {  // most recent first: kernels free in LIFO order
    if (used_[i].ptr != ptr) continue;
    const Block block = used_[i];
    used_.erase(used_.begin() + static_cast<std::ptrdiff_t>(i));
    if (cached_bytes_ + block.bytes > max_cached_bytes_) {
      std::free(block.ptr);
    } else {
      free_.push_back(block);
      cached_bytes_ += block.bytes;
    }
    return;
  }
  std::free(ptr);
}

WorkspacePool& WorkspacePool::ThreadLocal() {
  thread_local WorkspacePool pool;
  return pool;
}

}  // namespace runtime
}  // namespace tessera
