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
  // Rows: the 6 divisors of 12 and 8 (padded to 16 in the kernel); 16 and 8: their divisors.
  EXPECT_EQ(s.size(), 7 * 5 * 4);
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

// Rows and columns without a useful divisor (attention's 197 × 197 scores in ViT; 13 × 19 here)
// run whole register tiles padded inside the kernel, with every sampled config matching the
// reference.
TEST(BatchMatmulX86Test, RaggedRowsAndColumnsRunPaddedTiles) {
  BatchMatmulShape shape{2, 13, 19, 5};
  space::ConfigSpace s = BatchMatmulX86Space(shape);
  space::ConfigEntity fallback = s.Fallback();
  EXPECT_EQ(fallback.Split("tile_y"), (std::vector<int64_t>{-1, 4}));
  EXPECT_EQ(fallback.Split("tile_x"), (std::vector<int64_t>{-1, 16}));
  std::mt19937_64 rng(3);
  std::vector<space::ConfigEntity> configs = {fallback, s.Get(0), s.Get(s.size() - 1)};
  for (int i = 0; i < 6; ++i) configs.push_back(space::RandomConfig(s, rng));
  for (const auto& config : configs) {
    ScheduledOp op = BatchMatmulX86(shape, config);
    EXPECT_EQ(testing::CheckAgainstReference(op.schedule, op.args, "bmm", 7), "")
        << "C backend: " << config.ToString();
    EXPECT_EQ(
        testing::CheckAgainstReference(op.schedule, op.args, "bmm", 7, testing::LLVMBackend()), "")
        << "LLVM backend: " << config.ToString();
  }
}

// batch_matmul.arm's space: the reduction's inner factor in fours where k allows and unrolled
// (lane loads on NEON), 8 rows × 2 vectors in the fallback; its configs, lane loads or not,
// compute the reference (the same computation, run here on the host).
TEST(BatchMatmulX86Test, ArmSpaceUnrollsTheReductionInFours) {
  const VectorUnit neon{4, 32, 512 << 10};
  BatchMatmulShape shape{2, 16, 12, 8};
  space::ConfigSpace s = BatchMatmulArmSpace(shape, neon);
  space::ConfigEntity fallback = s.Fallback();
  EXPECT_EQ(fallback.Split("tile_y"), (std::vector<int64_t>{-1, 8}));
  EXPECT_EQ(fallback.Split("tile_x"), (std::vector<int64_t>{-1, 8}));
  EXPECT_EQ(fallback.Split("tile_k"), (std::vector<int64_t>{-1, 4}));
  EXPECT_EQ(fallback.Value("unroll_k"), 1);
  for (const std::vector<int64_t>& choice : s.knob("tile_k").choices) {
    EXPECT_EQ(choice[1] % 4, 0) << "an inner reduction factor of " << choice[1];
  }
  EXPECT_EQ(BatchMatmulArmSpace({1, 4, 4, 6}, neon).Fallback().Split("tile_k")[1], 3)
      << "k = 6 has no factor of four: any factor, the largest up to 4";
  std::mt19937_64 rng(4);
  std::vector<space::ConfigEntity> configs = {fallback, s.Get(0), s.Get(s.size() - 1)};
  for (int i = 0; i < 5; ++i) configs.push_back(space::RandomConfig(s, rng));
  for (const auto& config : configs) {
    ScheduledOp op = BatchMatmulX86(shape, config);
    EXPECT_EQ(
        testing::CheckAgainstReference(op.schedule, op.args, "bmm", 8, testing::LLVMBackend()), "")
        << "LLVM backend: " << config.ToString();
  }
}

}  // namespace
}  // namespace topi
}  // namespace tessera
