#include "compiler/topi/dense_x86.h"

#include <gmock/gmock.h>
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

TEST(DenseX86Test, SpaceAndFallback) {
  space::ConfigSpace s = DenseX86Space({1024, 1024, 1024});
  // tile_y: 46 two-factor choices of 2^10 with both ≤ 64; tile_x: the 25 of them whose innermost
  // factor is a whole number of 8-lane vectors; tile_k: 7; unroll_k: 2.
  EXPECT_EQ(s.size(), 46 * 25 * 7 * 2);
  for (int64_t i = 0; i < s.size(); i += 97) EXPECT_EQ(s.Get(i).Split("tile_x")[2] % 8, 0);
  space::ConfigEntity fallback = s.Fallback();
  EXPECT_TRUE(fallback.is_fallback());
  EXPECT_EQ(fallback.Split("tile_y"), (std::vector<int64_t>{-1, 8, 4}));
  EXPECT_EQ(fallback.Split("tile_x"), (std::vector<int64_t>{-1, 2, 64}));
  EXPECT_EQ(fallback.Split("tile_k"), (std::vector<int64_t>{-1, 4}));
  EXPECT_EQ(fallback.Value("unroll_k"), 1);
  EXPECT_THROW(DenseX86Space({0, 4, 4}), UserError);
}

TEST(DenseX86Test, SampledConfigsMatchTheReference) {
  DenseShape shape{24, 32, 16};
  space::ConfigSpace s = DenseX86Space(shape);
  std::mt19937_64 rng(5);
  std::vector<space::ConfigEntity> configs = {s.Fallback(), s.Get(0), s.Get(s.size() - 1)};
  for (int i = 0; i < 8; ++i) configs.push_back(space::RandomConfig(s, rng));
  for (const auto& config : configs) {
    ScheduledOp op = DenseX86(shape, config);
    EXPECT_EQ(op.flops, 2.0 * 24 * 32 * 16);
    EXPECT_EQ(testing::CheckAgainstReference(op.schedule, op.args, "dense", 7), "")
        << "C backend: " << config.ToString();
    EXPECT_EQ(testing::CheckAgainstReference(op.schedule, op.args, "dense", 7, LLVMBackend()), "")
        << "LLVM backend: " << config.ToString();
  }
}

TEST(DenseX86Test, DefaultScheduleMatchesTheReference) {
  ScheduledOp op = DenseDefault({5, 7, 3});
  EXPECT_EQ(testing::CheckAgainstReference(op.schedule, op.args, "dense", 9), "");
}

TEST(DenseX86Test, AConfigOfAnotherShapeIsAUserError) {
  space::ConfigSpace big = DenseX86Space({64, 64, 64});
  space::ConfigEntity c = big.FromValues(
      {{"tile_y", {-1, 8, 8}}, {"tile_x", {-1, 2, 16}}, {"tile_k", {-1, 8}}, {"unroll_k", {0}}});
  try {
    DenseX86({24, 32, 16}, c);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("does not tile the shape m=24 n=32 k=16"));
  }
}

}  // namespace
}  // namespace topi
}  // namespace tessera
