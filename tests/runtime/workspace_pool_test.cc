#include "runtime/workspace_pool.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <thread>

#include "runtime/c_backend_api.h"

namespace tessera {
namespace runtime {
namespace {

bool Aligned(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 64 == 0; }

TEST(WorkspacePoolTest, AFreedBlockServesTheNextCallThatFits) {
  WorkspacePool pool;
  void* a = pool.Alloc(1 << 20);
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(Aligned(a));
  static_cast<char*>(a)[(1 << 20) - 1] = 1;  // the whole block is usable
  pool.Free(a);
  EXPECT_EQ(pool.cached_bytes(), size_t{1} << 20);
  EXPECT_EQ(pool.Alloc(1 << 20), a);  // no new pages for the same kernel's next call
  EXPECT_EQ(pool.cached_bytes(), 0u);
  void* b = pool.Alloc(1 << 20);  // a is in use: a new block
  EXPECT_NE(b, a);
  pool.Free(a);
  pool.Free(b);
  EXPECT_NE(pool.Alloc(0), nullptr);  // zero bytes: still a real pointer
}

TEST(WorkspacePoolTest, TheSmallestFreeBlockThatFitsIsTaken) {
  WorkspacePool pool;
  void* big = pool.Alloc(4096);
  void* small = pool.Alloc(1024);
  pool.Free(big);
  pool.Free(small);
  EXPECT_EQ(pool.Alloc(1000), small);
  EXPECT_EQ(pool.Alloc(2000), big);
  void* bigger = pool.Alloc(8192);  // nothing fits
  EXPECT_NE(bigger, big);
  EXPECT_TRUE(Aligned(bigger));
}

TEST(WorkspacePoolTest, FreeBlocksBeyondTheCapGoBackToTheSystem) {
  WorkspacePool pool(3000);
  void* a = pool.Alloc(2000);
  void* b = pool.Alloc(2000);
  pool.Free(a);
  pool.Free(b);  // 4000 > 3000: freed
  EXPECT_EQ(pool.cached_bytes(), 2000u);
  EXPECT_EQ(pool.Alloc(2000), a);
}

// Compiled kernels reach the pool of their thread through the backend API.
TEST(WorkspacePoolTest, KernelsWorkspacesComeFromTheirThreadsPool) {
  void* a = TesseraBackendAllocWorkspace(kDLCPU, 0, 1 << 16, 2, 32);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(TesseraBackendFreeWorkspace(kDLCPU, 0, a), 0);
  EXPECT_EQ(TesseraBackendAllocWorkspace(kDLCPU, 0, 1 << 16, 2, 32), a);
  std::thread other([a] {
    void* b = TesseraBackendAllocWorkspace(kDLCPU, 0, 1 << 16, 2, 32);
    EXPECT_NE(b, a);  // another thread, another pool
    EXPECT_EQ(TesseraBackendFreeWorkspace(kDLCPU, 0, b), 0);
  });
  other.join();
  EXPECT_EQ(TesseraBackendFreeWorkspace(kDLCPU, 0, a), 0);
}

}  // namespace
}  // namespace runtime
}  // namespace tessera
