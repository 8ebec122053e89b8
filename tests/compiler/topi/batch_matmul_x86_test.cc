#include "compiler/topi/batch_matmul_x86.h"

#include <gtest/gtest.h>

#include <random>

#include "compiler/space/mutation.h"
#include "compiler/support/error.h"
#include "tests/compiler/testing/llvm_backend.h"
#include "tests/compiler/testing/reference_check.h"

namespace tessera {
namespace topi {
namespace {

TEST(BatchMatmulX86Test, SampledConfigsMatchTheReference) {
  BatchMatmulShape shape{3, 12, 16, 8};
  space::ConfigSpace s = BatchMatmulX86Space(shape);
  EXPECT_EQ(s.size(), 6 * 5 * 4);  // divisors of 12, 16 and 8
  std::mt19937_64 rng(2);
  std::vector<space::ConfigEntity> configs = {s.Fallback(), s.Get(0), s.Get(s.size() - 1)};
  for (int i = 0; i < 5; ++i) configs.push_back(space::RandomConfig(s, rng));
  for (const auto& config : configs) {
    ScheduledOp op = BatchMatmulX86(shape, config);
    EXPECT_EQ(testing::CheckAgainstReference(op.schedule, op.args, "bmm", 5), "")
        << "C backend: " << config.ToString();
    EXPECT_EQ(
        testing::CheckAgainstReference(op.schedule, op.args, "bmm", 5, testing::LLVMBackend()), "")
        << "LLVM backend: " << config.ToString();
  }
  ScheduledOp plain = BatchMatmulDefault(shape);
  EXPECT_EQ(testing::CheckAgainstReference(plain.schedule, plain.args, "bmm", 6), "");
  EXPECT_THROW(BatchMatmulX86Space({0, 1, 1, 1}), UserError);
}

}  // namespace
}  // namespace topi
}  // namespace tessera
