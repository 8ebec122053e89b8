#include "compiler/topi/depthwise_conv2d_nchwc_x86.h"

#include <gtest/gtest.h>

#include <random>

#include "compiler/driver/build.h"
#include "compiler/space/mutation.h"
#include "compiler/support/error.h"
#include "tests/compiler/testing/reference_check.h"

namespace tessera {
namespace topi {
namespace {

testing::Backend LLVMBackend() {
  return [](const ir::PrimFunc& f) { return build({f}, Target("llvm -mcpu=native")); };
}

// Every sampled config computes what the schedule-free compute does, strided and padded or not.
TEST(DepthwiseConv2dNCHWcX86Test, SampledConfigsMatchTheReference) {
  for (Conv2dShape shape : {Conv2dShape{1, 8, 8, 8, 8, 3, 3, 1, 1},
                            Conv2dShape{2, 12, 9, 9, 12, 3, 3, 2, 1},
                            Conv2dShape{1, 4, 6, 6, 4, 3, 3, 1, 0}}) {
    space::ConfigSpace s = DepthwiseConv2dNCHWcX86Space(shape);
    std::mt19937_64 rng(11);
    std::vector<space::ConfigEntity> configs = {s.Get(0), s.Get(s.size() - 1)};
    for (int i = 0; i < 4; ++i) configs.push_back(space::RandomConfig(s, rng));
    for (const auto& config : configs) {
      ScheduledOp op = DepthwiseConv2dNCHWcX86(shape, config);
      EXPECT_EQ(testing::CheckAgainstReference(op.schedule, op.args, "dwc", 8), "")
          << "C backend: " << config.ToString();
      EXPECT_EQ(testing::CheckAgainstReference(op.schedule, op.args, "dwc", 8, LLVMBackend()), "")
          << "LLVM backend: " << config.ToString();
    }
  }
}

TEST(DepthwiseConv2dNCHWcX86Test, FallbackBlocksSixteenChannels) {
  space::ConfigSpace s = DepthwiseConv2dNCHWcX86Space({1, 32, 14, 14, 32, 3, 3, 1, 1});
  EXPECT_EQ(DepthwiseConv2dNCHWcBlock(s.Fallback()), 16);
  ScheduledOp op = DepthwiseConv2dNCHWcX86({1, 32, 14, 14, 32, 3, 3, 1, 1}, s.Fallback());
  EXPECT_EQ(testing::CheckAgainstReference(op.schedule, op.args, "dwc", 3, LLVMBackend()), "");
  EXPECT_THROW(DepthwiseConv2dNCHWcX86Space({1, 4, 8, 8, 8, 3, 3, 1, 1}), UserError);
}

}  // namespace
}  // namespace topi
}  // namespace tessera
