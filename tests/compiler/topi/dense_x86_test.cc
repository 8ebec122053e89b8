#include "compiler/topi/dense_x86.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/lower/lower.h"
#include "compiler/space/mutation.h"
#include "compiler/support/error.h"
#include "compiler/te/tensor.h"
#include "compiler/topi/index_constant.h"
#include "tests/compiler/testing/llvm_backend.h"
#include "tests/compiler/testing/reference_check.h"

namespace tessera {
namespace topi {
namespace {

TEST(DenseX86Test, SpaceAndFallback) {
  space::ConfigSpace s = DenseX86Space({1024, 1024, 1024});
  // tile_y: 46 two-factor choices of 2^10 with both ≤ 64; tile_x: the 25 of them whose innermost
  // factor is a whole number of 8-lane vectors; tile_k: 7; unroll_k, k_outer, prefetch: 2 each.
  EXPECT_EQ(s.size(), 46 * 25 * 7 * 2 * 2 * 2);
  for (int64_t i = 0; i < s.size(); i += 97) EXPECT_EQ(s.Get(i).Split("tile_x")[2] % 8, 0);
  space::ConfigEntity fallback = s.Fallback();
  EXPECT_TRUE(fallback.is_fallback());
  EXPECT_EQ(fallback.Split("tile_y"), (std::vector<int64_t>{-1, 16, 8}));
  EXPECT_EQ(fallback.Split("tile_x"), (std::vector<int64_t>{-1, 1, 32}));
  EXPECT_EQ(fallback.Split("tile_k"), (std::vector<int64_t>{-1, 4}));
  EXPECT_EQ(fallback.Value("unroll_k"), 1);
  EXPECT_EQ(fallback.Value("k_outer"), 0);
  // Three vectors of 16 per row where 48 divides n (BERT's 768, 2304, 3072).
  EXPECT_EQ(DenseX86Space({128, 768, 3072}).Fallback().Split("tile_x"),
            (std::vector<int64_t>{-1, 1, 48}));
  EXPECT_EQ(fallback.Value("prefetch"), 1);
  // AVX2 (16 registers of 8 lanes): 4 rows × 3 vectors, or × 2 where 24 does not divide n; an
  // 8 × 32 tile would need 32 accumulators.
  const VectorUnit avx2{8, 16};
  space::ConfigEntity avx2_bert = DenseX86Space({128, 768, 3072}, avx2).Fallback();
  EXPECT_EQ(avx2_bert.Split("tile_y"), (std::vector<int64_t>{-1, 32, 4}));
  EXPECT_EQ(avx2_bert.Split("tile_x"), (std::vector<int64_t>{-1, 1, 24}));
  EXPECT_EQ(DenseX86Space({128, 1024, 64}, avx2).Fallback().Split("tile_x"),
            (std::vector<int64_t>{-1, 1, 16}));
  // NEON (32 registers of 4 lanes): 12 columns are not whole 8-lane steps of the space, so two
  // vectors, 8 rows.
  space::ConfigEntity neon = DenseX86Space({128, 768, 768}, VectorUnit{4, 32}).Fallback();
  EXPECT_EQ(neon.Split("tile_y"), (std::vector<int64_t>{-1, 16, 8}));
  EXPECT_EQ(neon.Split("tile_x"), (std::vector<int64_t>{-1, 1, 8}));
  // A classifier's dense (one row, 1000 = 8 × 125 columns): the widest tiles that divide.
  space::ConfigEntity fc = DenseX86Space({1, 1000, 512}).Fallback();
  EXPECT_EQ(fc.Split("tile_y"), (std::vector<int64_t>{-1, 1, 1}));
  EXPECT_EQ(fc.Split("tile_x"), (std::vector<int64_t>{-1, 1, 8}));
  EXPECT_EQ(fc.Split("tile_k"), (std::vector<int64_t>{-1, 4}));
  EXPECT_THROW(DenseX86Space({0, 4, 4}), UserError);
}

// Records written before k_outer and prefetch existed ran the register-tile nest without
// prefetch: they load as k_outer = 0, prefetch = 0.
TEST(DenseX86Test, ARecordWithoutKOuterRunsTheRegisterTileNest) {
  space::ConfigSpace s = DenseX86Space({64, 64, 64});
  space::ConfigEntity old = s.FromValues(
      {{"tile_y", {-1, 8, 8}}, {"tile_x", {-1, 2, 16}}, {"tile_k", {-1, 8}}, {"unroll_k", {0}}});
  EXPECT_EQ(old.Value("k_outer"), 0);
  EXPECT_EQ(old.Value("prefetch"), 0);
}

// Block accumulators with the reduction outermost: several row and column tiles per block,
// several blocks in parallel, several chunks, with bias + residual + ReLU fused, on both backends.
TEST(DenseX86Test, KOuterBlocksWithAFusedEpilogueMatchTheReference) {
  DenseShape shape{32, 48, 40};
  space::ConfigSpace s = DenseX86Space(shape);
  std::vector<space::ConfigEntity> configs = {s.FromValues({{"tile_y", {-1, 4, 4}},
                                                            {"tile_x", {-1, 2, 8}},
                                                            {"tile_k", {-1, 8}},
                                                            {"unroll_k", {1}},
                                                            {"k_outer", {1}}}),
                                              s.FromValues({{"tile_y", {-1, 2, 8}},
                                                            {"tile_x", {-1, 3, 16}},
                                                            {"tile_k", {-1, 5}},
                                                            {"unroll_k", {0}},
                                                            {"k_outer", {1}}})};
  for (const auto& config : configs) {
    ASSERT_EQ(config.Value("k_outer"), 1) << config.ToString();
    std::vector<ir::Expr> out_shape = {I(shape.m), I(shape.n)};
    te::Tensor bias = te::placeholder({I(shape.n)}, ir::DataType::Float(32), "bias");
    te::Tensor skip = te::placeholder(out_shape, ir::DataType::Float(32), "skip");
    OutputEpilogue epilogue;
    epilogue.inputs = {bias, skip};
    epilogue.apply = [&](const te::Tensor& c) {
      return te::compute(
          out_shape,
          [&](ir::Var y, ir::Var x) {
            ir::Expr v = c(y, x) + bias(x) + skip(y, x);
            return ir::max(v, ir::const_like(v, 0));
          },
          "bias_add_relu");
    };
    ScheduledOp op = DenseX86(shape, config, &epilogue);
    ASSERT_EQ(op.args.size(), 5u);  // A, packed W, bias, skip, output
    EXPECT_EQ(testing::CheckAgainstReference(op.schedule, op.args, "dense_epilogue", 3), "")
        << "C backend: " << config.ToString();
    EXPECT_EQ(testing::CheckAgainstReference(op.schedule, op.args, "dense_epilogue", 3,
                                             testing::LLVMBackend()),
              "")
        << "LLVM backend: " << config.ToString();
  }
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
    EXPECT_EQ(
        testing::CheckAgainstReference(op.schedule, op.args, "dense", 7, testing::LLVMBackend()),
        "")
        << "LLVM backend: " << config.ToString();
  }
}

// dense.arm's space: columns in whole NEON vectors (4, where the x86 space's least is 8), the
// reduction's inner factor in unrolled fours, 8 rows × 2 vectors in the fallback (16
// accumulators beside 8 row vectors of A and 2 of weights); its configs compute the reference.
TEST(DenseX86Test, ArmSpaceTilesInNeonVectorsAndUnrolledFours) {
  const VectorUnit neon{4, 32, 512 << 10};
  DenseShape shape{16, 20, 16};
  space::ConfigSpace s = DenseArmSpace(shape, neon);
  space::ConfigEntity fallback = s.Fallback();
  EXPECT_EQ(fallback.Split("tile_y"), (std::vector<int64_t>{-1, 2, 8}));
  EXPECT_EQ(fallback.Split("tile_x"), (std::vector<int64_t>{-1, 1, 4}))
      << "20 columns: no block of two vectors divides them";
  EXPECT_EQ(fallback.Split("tile_k"), (std::vector<int64_t>{-1, 4}));
  EXPECT_EQ(DenseArmSpace({64, 64, 64}, neon).Fallback().Split("tile_x"),
            (std::vector<int64_t>{-1, 1, 8}));
  for (const std::vector<int64_t>& choice : s.knob("tile_x").choices) {
    EXPECT_EQ(choice[2] % 4, 0) << "columns " << choice[2];
  }
  for (const std::vector<int64_t>& choice : s.knob("tile_k").choices) {
    EXPECT_EQ(choice[1] % 4, 0) << "an inner reduction factor of " << choice[1];
  }
  EXPECT_EQ(s.knob("unroll_k").choices.size(), 1u);
  std::mt19937_64 rng(6);
  std::vector<space::ConfigEntity> configs = {fallback, s.Get(0), s.Get(s.size() - 1)};
  for (int i = 0; i < 5; ++i) configs.push_back(space::RandomConfig(s, rng));
  for (const auto& config : configs) {
    ScheduledOp op = DenseX86(shape, config);
    EXPECT_EQ(
        testing::CheckAgainstReference(op.schedule, op.args, "dense", 9, testing::LLVMBackend()),
        "")
        << "LLVM backend: " << config.ToString();
  }
}

// The next block's weight panel (or with k_outer the next chunk), a line per reduction step, at
// the right address: (block + 1) panels of K × 48 floats from the start.
TEST(DenseX86Test, PrefetchFetchesTheNextWeightsAndKeepsTheResult) {
  DenseShape shape{32, 96, 64};
  space::ConfigSpace s = DenseX86Space(shape);
  ASSERT_EQ(s.Fallback().Value("prefetch"), 1);
  // A block's panel is 64 × 48 floats, 192 lines (194 counted), over 4 row tiles × 8 chunks: 7
  // lines a step; a chunk is 8 × 48 floats, a line per step (4 row tiles × 8 unrolled steps).
  const std::vector<std::string> expected = {
      "tessera.prefetch(packed_W[(((((C.i.outer.C.j.outer.fused*3072) + (C.i.inner.outer*896)) + "
      "(k.outer*112)) + (prefetch_line*16)) + 3072)])",
      "tessera.prefetch(packed_W[((((C.i.outer.C.j.outer.fused*3072) + (k.outer*384)) + "
      "(C.i.outer*128)) + 384)])"};
  for (int k_outer : {0, 1}) {
    space::ConfigEntity config = s.FromValues({{"tile_y", {-1, 4, 8}},
                                               {"tile_x", {-1, 1, 48}},
                                               {"tile_k", {-1, 8}},
                                               {"unroll_k", {1}},
                                               {"k_outer", {k_outer}},
                                               {"prefetch", {1}}});
    ScheduledOp op = DenseX86(shape, config);
    std::string text = ir::ToText(lower::Lower(op.schedule, op.args, "dense"));
    EXPECT_THAT(text, ::testing::HasSubstr(expected[k_outer])) << text;
    EXPECT_EQ(
        testing::CheckAgainstReference(op.schedule, op.args, "dense", 3, testing::LLVMBackend()),
        "")
        << config.ToString();
    EXPECT_EQ(testing::CheckAgainstReference(op.schedule, op.args, "dense", 3), "")
        << config.ToString();
  }
}

// A row count without a useful divisor (ViT's 197 rows; 29 here) runs whole register tiles
// padded inside the kernel: the fallback takes 8-row tiles, the reduction has no guard (the
// padding rows read A's last row), only the stores of the last tile are guarded, and every
// sampled config matches the reference, with and without an epilogue.
TEST(DenseX86Test, RowsWithoutADivisorRunPaddedRegisterTiles) {
  DenseShape shape{29, 32, 24};
  space::ConfigSpace s = DenseX86Space(shape);
  space::ConfigEntity fallback = s.Fallback();
  EXPECT_EQ(fallback.Split("tile_y"), (std::vector<int64_t>{-1, 4, 8}));
  // BERT-like shapes with a divisor keep their tiles (128 rows: 8; 12 rows: 6).
  EXPECT_EQ(DenseX86Space({12, 32, 24}).Fallback().Split("tile_y"),
            (std::vector<int64_t>{-1, 2, 6}));

  ScheduledOp padded = DenseX86(shape, fallback);
  std::string text = ir::ToText(lower::Lower(padded.schedule, padded.args, "dense"));
  const size_t reduction = text.find("for k.outer in");
  ASSERT_NE(reduction, std::string::npos) << text;
  const size_t reduction_end = text.find("C_rows[", reduction);
  EXPECT_EQ(text.substr(reduction, reduction_end - reduction).find("if ("), std::string::npos)
      << text;
  EXPECT_THAT(text, ::testing::HasSubstr("min(")) << text;

  std::mt19937_64 rng(11);
  std::vector<space::ConfigEntity> configs = {fallback, s.Get(0), s.Get(s.size() - 1)};
  for (int i = 0; i < 8; ++i) configs.push_back(space::RandomConfig(s, rng));
  te::Tensor bias = te::placeholder({I(shape.n)}, ir::DataType::Float(32), "bias");
  OutputEpilogue epilogue;
  epilogue.inputs = {bias};
  epilogue.apply = [&](const te::Tensor& c) {
    return te::compute(
        {I(shape.m), I(shape.n)}, [&](ir::Var y, ir::Var x) { return c(y, x) + bias(x); },
        "bias_add");
  };
  for (size_t i = 0; i < configs.size(); ++i) {
    const space::ConfigEntity& config = configs[i];
    ScheduledOp op = DenseX86(shape, config, i % 2 ? &epilogue : nullptr);
    EXPECT_EQ(testing::CheckAgainstReference(op.schedule, op.args, "dense", 5), "")
        << "C backend: " << config.ToString();
    EXPECT_EQ(
        testing::CheckAgainstReference(op.schedule, op.args, "dense", 5, testing::LLVMBackend()),
        "")
        << "LLVM backend: " << config.ToString();
  }
}

// A fused epilogue that reads the product through the model's shape ([1, 14, 16, n] for 224
// rows: the row unflattened and flattened again, as a channels-last MLP in ConvNeXt does) keeps
// one register tile of accumulators; bound inference once took the whole block (32 rows here,
// 112 in ConvNeXt, whose MLPs then ran at 2 GFLOP/s).
TEST(DenseX86Test, AnEpilogueReadingThroughTheModelShapeKeepsOneRegisterTile) {
  DenseShape shape{224, 48, 16};
  space::ConfigSpace s = DenseX86Space(shape);
  space::ConfigEntity config = s.FromValues({{"tile_y", {-1, 4, 8}},
                                             {"tile_x", {-1, 1, 48}},
                                             {"tile_k", {-1, 4}},
                                             {"unroll_k", {1}},
                                             {"k_outer", {0}},
                                             {"prefetch", {0}}});
  te::Tensor bias = te::placeholder({I(shape.n)}, ir::DataType::Float(32), "bias");
  OutputEpilogue epilogue;
  epilogue.inputs = {bias};
  epilogue.apply = [&](const te::Tensor& c) {
    te::Tensor nd = te::compute(
        {I(1), I(14), I(16), I(shape.n)},
        [&](const std::vector<ir::Var>& i) { return c(i[1] * I(16) + i[2], i[3]) + bias(i[3]); },
        "bias_nd");
    return te::compute(
        {I(shape.m), I(shape.n)},
        [&](ir::Var y, ir::Var x) {
          return nd(I(0), ir::floormod(ir::floordiv(y, I(16)), I(14)), ir::floormod(y, I(16)), x);
        },
        "bias_2d");
  };
  ScheduledOp op = DenseX86(shape, config, &epilogue);
  std::string text = ir::ToText(lower::Lower(op.schedule, op.args, "dense"));
  EXPECT_THAT(text, ::testing::HasSubstr("allocate C: float32[384], stack")) << text;
  EXPECT_EQ(
      testing::CheckAgainstReference(op.schedule, op.args, "dense", 3, testing::LLVMBackend()), "");
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
