#include "runtime/c_api.h"

#include <gtest/gtest.h>

#include "tests/runtime/kernel_library.h"

extern "C" int run_c_api_embedding(const char* library, char* err, size_t errlen);
extern "C" int run_c_api_callbacks(char* err, size_t errlen);

namespace tessera {
namespace {

TEST(CApiTest, EmbeddingFromCLoadsAndCallsKernels) {
  char err[512] = "";
  EXPECT_EQ(run_c_api_embedding(testing::KernelLibraryPath().c_str(), err, sizeof(err)), 0) << err;
}

TEST(CApiTest, CCallbacksAndGlobalRegistry) {
  char err[512] = "";
  EXPECT_EQ(run_c_api_callbacks(err, sizeof(err)), 0) << err;
}

TEST(CApiTest, ErrorsCrossTheAbiWithTheirMessage) {
  TesseraArrayHandle a;
  int64_t shape[1] = {-3};
  EXPECT_EQ(TesseraArrayAlloc(shape, 1, kDLFloat, 32, 1, kDLCPU, 0, &a), -1);
  EXPECT_STREQ(TesseraGetLastError(),
               "cannot allocate an array of shape [-3]: dimensions must be non-negative");
}

}  // namespace
}  // namespace tessera
