#include "compiler/topi/depthwise_conv2d_x86.h"

#include <gtest/gtest.h>

#include <random>

#include "compiler/space/mutation.h"
#include "compiler/support/error.h"
#include "tests/compiler/testing/llvm_backend.h"
#include "tests/compiler/testing/reference_check.h"

namespace tessera {
namespace topi {
namespace {

TEST(DepthwiseConv2dX86Test, SampledConfigsMatchTheReference) {
  for (Conv2dShape shape :
       {Conv2dShape{1, 4, 8, 8, 4, 3, 3, 1, 1}, Conv2dShape{2, 3, 9, 9, 3, 3, 3, 2, 1}}) {
    space::ConfigSpace s = DepthwiseConv2dX86Space(shape);
    std::mt19937_64 rng(7);
    std::vector<space::ConfigEntity> configs = {s.Fallback(), s.Get(0), s.Get(s.size() - 1)};
    for (int i = 0; i < 4; ++i) configs.push_back(space::RandomConfig(s, rng));
    for (const auto& config : configs) {
      ScheduledOp op = DepthwiseConv2dX86(shape, config);
      EXPECT_EQ(testing::CheckAgainstReference(op.schedule, op.args, "dw", 8), "")
          << "C backend: " << config.ToString();
      EXPECT_EQ(
          testing::CheckAgainstReference(op.schedule, op.args, "dw", 8, testing::LLVMBackend()), "")
          << "LLVM backend: " << config.ToString();
    }
  }
  ScheduledOp plain = DepthwiseConv2dDefault({1, 2, 5, 5, 2, 3, 3, 1, 1});
  EXPECT_EQ(testing::CheckAgainstReference(plain.schedule, plain.args, "dw", 9), "");
  EXPECT_THROW(DepthwiseConv2dX86Space({1, 4, 8, 8, 8, 3, 3, 1, 1}), UserError);
}

}  // namespace
}  // namespace topi
}  // namespace tessera
