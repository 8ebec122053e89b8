// Streams of the device API: the CPU's (its one default stream; asynchronous copies copy at once)
// everywhere; on a CUDA GPU (skipped without one), copies and a kernel queued on a stream of their
// own, and the time evaluator's launches on a stream of its own. The kernel is hand-written PTX
// (b[i] = a[i] + 1), so this test needs no compiler.
#include <gtest/gtest.h>

#include <vector>

#include "runtime/cuda_module.h"
#include "runtime/data_type.h"
#include "runtime/device_api.h"
#include "runtime/ndarray.h"
#include "runtime/time_evaluator.h"

namespace tessera {
namespace runtime {
namespace {

constexpr DLDevice kGPU{kDLCUDA, 0};

const char* const kAddOnePTX = R"(.version 7.0
.target sm_52
.address_size 64

.visible .entry add_one_kernel0(.param .u64 a, .param .u64 b)
{
  .reg .b32 %r<2>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  add.s64 %rd5, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  add.f32 %f2, %f1, 0f3F800000;
  st.global.f32 [%rd5], %f2;
  ret;
}
)";

// add_one(a, b): b = a + 1 over 8 floats, one block of 8 threads.
Module AddOne() {
  CUDAHostFunction f;
  f.name = "add_one";
  f.args = {{MakeDataType(kDLFloat, 32), {8}}, {MakeDataType(kDLFloat, 32), {8}}};
  f.launches = {{"add_one_kernel0", {1, 1, 1}, {8, 1, 1}, {0, 1}}};
  return CUDAModuleCreate(kAddOnePTX, {f});
}

TEST(CUDAStreamTest, CPUHasOnlyTheDefaultStream) {
  DeviceAPI* cpu = DeviceAPI::Get(CPUDevice());
  DeviceAPI::Stream s = cpu->CreateStream(0);
  EXPECT_EQ(s, nullptr);
  EXPECT_EQ(cpu->SetStream(0, s), nullptr);
  EXPECT_EQ(cpu->GetStream(0), nullptr);
  float src[4] = {1, 2, 3, 4}, mid[4] = {}, dst[4] = {};
  cpu->CopyFromHostAsync(0, mid, src, sizeof(src), s);
  cpu->CopyToHostAsync(0, dst, mid, sizeof(mid), s);
  cpu->SyncStream(0, s);
  cpu->FreeStream(0, s);
  EXPECT_EQ(std::vector<float>(dst, dst + 4), std::vector<float>(src, src + 4));
}

class CUDAStreamDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!DeviceAPI::Exists(kGPU)) GTEST_SKIP() << "no CUDA device: stream tests need a GPU";
  }
};

TEST_F(CUDAStreamDeviceTest, CopiesAndLaunchesRunOnTheGivenStream) {
  DeviceAPI* api = DeviceAPI::Get(kGPU);
  const DLDataType f32 = MakeDataType(kDLFloat, 32);
  NDArray a = NDArray::Empty({8}, f32, kGPU), b = NDArray::Empty({8}, f32, kGPU);
  std::vector<float> in = {0, 1, 2, 3, 4, 5, 6, 7}, out(8, -1);
  DeviceAPI::Stream s = api->CreateStream(0);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(api->GetStream(0), nullptr);
  api->CopyFromHostAsync(0, a->data, in.data(), 32, s);
  DeviceAPI::Stream previous = api->SetStream(0, s);
  EXPECT_EQ(previous, nullptr);
  EXPECT_EQ(api->GetStream(0), s);
  Module mod = AddOne();
  mod.GetFunction("add_one")(a, b);
  api->CopyToHostAsync(0, out.data(), b->data, 32, s);
  api->SyncStream(0, s);
  EXPECT_EQ(out, (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(api->SetStream(0, previous), s);
  api->FreeStream(0, s);
}

TEST_F(CUDAStreamDeviceTest, TimeEvaluatorTimesOnItsOwnStream) {
  DeviceAPI* api = DeviceAPI::Get(kGPU);
  const DLDataType f32 = MakeDataType(kDLFloat, 32);
  NDArray a = NDArray::Empty({8}, f32, kGPU), b = NDArray::Empty({8}, f32, kGPU);
  PackedFunc add_one = AddOne().GetFunction("add_one");
  std::vector<DeviceAPI::Stream> seen;
  PackedFunc recorded([&](PackedArgs args, RetValue* ret) {
    seen.push_back(api->GetStream(0));
    add_one.CallPacked(args, ret);
  });
  TimeEvaluatorOptions options;
  options.number = 2;
  options.repeat = 2;
  TesseraValue values[2];
  int32_t codes[2] = {kTesseraDLTensorHandle, kTesseraDLTensorHandle};
  values[0].v_handle = a.get();
  values[1].v_handle = b.get();
  std::vector<double> seconds = TimeFunction(recorded, kGPU, options, PackedArgs(values, codes, 2));
  ASSERT_EQ(seconds.size(), 2u);
  for (double t : seconds) EXPECT_GT(t, 0);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.front(), nullptr);  // the warm-up call, outside the timing
  EXPECT_NE(seen.back(), nullptr);   // the timed calls
  EXPECT_EQ(api->GetStream(0), nullptr);
}

}  // namespace
}  // namespace runtime
}  // namespace tessera
