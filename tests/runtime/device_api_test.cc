#include "runtime/device_api.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "runtime/c_backend_api.h"
#include "runtime/error.h"

namespace tessera {
namespace runtime {
namespace {

TEST(DeviceAPITest, CpuAllocatesAlignedAndCopies) {
  DeviceAPI* cpu = DeviceAPI::Get(DLDevice{kDLCPU, 0});
  void* p = cpu->Alloc(0, 100, 64);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  char src[100];
  std::memset(src, 7, sizeof(src));
  cpu->CopyFromHost(0, p, src, sizeof(src));
  EXPECT_EQ(static_cast<char*>(p)[99], 7);
  cpu->Free(0, p);
  EXPECT_TRUE(DeviceAPI::Exists(DLDevice{kDLCPU, 0}));
}

TEST(DeviceAPITest, UnknownDeviceIsAClearError) {
  try {
    DeviceAPI::Get(DLDevice{kDLVulkan, 0});
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "unsupported device device7:0: Tessera supports cpu and cuda");
  }
  try {
    DeviceAPI::Get(DLDevice{kDLCPU, 3});
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "unsupported device cpu:3: the CPU is device cpu:0");
  }
}

TEST(DeviceAPITest, CudaWithoutDriverFailsCleanly) {
  if (DeviceAPI::Exists(DLDevice{kDLCUDA, 0})) {
    GTEST_SKIP() << "a CUDA device is present; this test is for machines without one";
  }
  try {
    DeviceAPI::Get(DLDevice{kDLCUDA, 0});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("no CUDA device", 0), 0u) << e.what();
  }
}

TEST(DeviceAPITest, CudaRoundTripWhenPresent) {
  if (!DeviceAPI::Exists(DLDevice{kDLCUDA, 0})) GTEST_SKIP() << "no CUDA device";
  DeviceAPI* cuda = DeviceAPI::Get(DLDevice{kDLCUDA, 0});
  int in[4] = {1, 2, 3, 4}, out[4] = {};
  void* p = cuda->Alloc(0, sizeof(in), 64);
  cuda->CopyFromHost(0, p, in, sizeof(in));
  cuda->CopyToHost(0, out, p, sizeof(out));
  cuda->Free(0, p);
  EXPECT_EQ(out[3], 4);
}

TEST(DeviceAPITest, WorkspaceIsAlignedAndFreed) {
  void* p = TesseraBackendAllocWorkspace(kDLCPU, 0, 1000, 2, 32);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  EXPECT_EQ(TesseraBackendFreeWorkspace(kDLCPU, 0, p), 0);
  EXPECT_EQ(TesseraBackendAllocWorkspace(kDLVulkan, 0, 8, 2, 32), nullptr);
  EXPECT_NE(std::string(TesseraGetLastError()).find("unsupported device"), std::string::npos);
}

}  // namespace
}  // namespace runtime
}  // namespace tessera
