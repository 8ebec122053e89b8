#include "compiler/topi/dense_x86.h"

#include <algorithm>

#include "compiler/ir/op.h"
#include "compiler/support/error.h"
#include "compiler/te/tensor.h"
#include "compiler/topi/index_constant.h"
#include "compiler/topi/padded_tile.h"

namespace tessera {
namespace topi {
namespace {

using ir::DataType;
using ir::Expr;
using ir::Var;

constexpr int64_t kMaxTile = 64;
constexpr int64_t kVectorLanes = 8;

void CheckShape(const DenseShape& shape) {
  TESSERA_USER_CHECK(shape.m > 0 && shape.n > 0 && shape.k > 0)
      << "dense: dimensions must be positive, got m=" << shape.m << " n=" << shape.n
      << " k=" << shape.k;
  TESSERA_USER_CHECK(shape.m < (1 << 30) && shape.n < (1 << 30) && shape.k < (1 << 30))
      << "dense: dimensions must be below 2^30";
}

double DenseFlops(const DenseShape& shape) {
  return 2.0 * static_cast<double>(shape.m) * static_cast<double>(shape.n) *
         static_cast<double>(shape.k);
}

// C = A × W on `padded_m` rows (W packed in column blocks), the padding rows repeating A's last;
// with `bytes`, A and W hold words of four bytes multiplied by dot4_u8s8.
te::Tensor PaddedProduct(const DenseShape& shape, const te::Tensor& a, const te::Tensor& packed,
                         int64_t padded_m, bool bytes) {
  const Expr bn = packed.shape()[2];
  ir::IterVar k = te::reduce_axis(I(shape.k), "k");
  return te::compute(
      {I(padded_m), I(shape.n)},
      [&](Var y, Var x) {
        const Expr av = a(ClampedRow(y, shape.m, padded_m), k);
        const Expr wv = packed(ir::floordiv(x, bn), k, ir::floormod(x, bn));
        return te::sum(bytes ? ir::dot4_u8s8(av, wv) : av * wv, {k});
      },
      "C", "dense");
}

// The tiled dense of `shape` (counted in words when `bytes`) for `config`: DenseX86 and, over
// int32 words of four bytes, DenseInt8X86.
ScheduledOp TiledDense(const char* name, const DenseShape& shape, const space::ConfigEntity& config,
                       const OutputEpilogue* epilogue, bool bytes);

// The fallback register tile's rows: 8, 4, ... as many as fit `unit`'s registers at `per_row`
// registers a row and `fixed` more, then a factor of m where one is at least half of that (else
// the tile is padded).
int64_t FallbackRows(const DenseShape& shape, const VectorUnit& unit, int64_t per_row,
                     int64_t fixed) {
  int64_t rows = 8;
  while (rows > 1 && rows * per_row + fixed > unit.registers) rows /= 2;
  for (int64_t f = rows; f >= std::max<int64_t>(1, rows / 2); --f) {
    if (shape.m % f == 0) return f;
  }
  return rows;
}

}  // namespace

space::ConfigSpace DenseX86Space(const DenseShape& shape, const VectorUnit& unit) {
  CheckShape(shape);
  space::ConfigSpace s;
  // Rows pad to the register tile inside the kernel (DenseX86): a prime row count (ViT's 197)
  // still gets whole 8-row tiles instead of one row at a time.
  s.DefineSplit("tile_y", shape.m, {space::SplitPolicy::kPaddedInnermost, 3, kMaxTile});
  // The innermost x factor is the vectorized loop: whole vectors (8 lanes of AVX2, half of
  // AVX-512) only; narrower ones waste most of every FMA and are never competitive.
  s.DefineSplit("tile_x", shape.n, {space::SplitPolicy::kFactors, 3, kMaxTile, kVectorLanes});
  s.DefineSplit("tile_k", shape.k, {space::SplitPolicy::kFactors, 2, kMaxTile});
  s.DefineKnob("unroll_k", {0, 1});
  // Added after records were written: a record without it ran the register-tile nest.
  s.DefineKnob("k_outer", {0, 1}, /*when_absent=*/0);
  // Added after records were written: a record without it ran without software prefetch.
  s.DefineKnob("prefetch", {0, 1}, /*when_absent=*/0);
  // The fallback register tile: three vectors per row where they divide n, else two, and as many
  // rows (8, 4, ...) as leave a register for each weight vector and the broadcast of A. AVX-512:
  // 8 × 48 (24 accumulators, three multiply-adds per broadcast) or 8 × 32; AVX2: 4 × 24 or 4 × 16
  // (an 8 × 32 tile spilled: 22 GFLOP/s on the Cascade Lake machine with -mcpu=haswell against
  // 75 for 4 × 24, the AVX2 peak). In blocks of up to 128 rows × one panel: a panel (K × 48
  // floats) comes from memory once and serves every row tile of the block from L2. With cold
  // weights, 8 × 48 runs BERT's four dense shapes in 0.91-0.95 of the time of 8 × 32, which ran
  // them at 1.0-1.25x the speed of 64-row blocks; the earlier fallback (4 × 64 tiles in 32-row
  // blocks: every panel streamed from memory 4 times, 4 vector loads per 16 multiply-adds) ran
  // linear2 (K = 3072) at 31-36 GFLOP/s against 84-90 (bench/config_probe --cold, configs
  // interleaved). k_outer measured within ±5% of this nest on these shapes, so the fallback keeps
  // the simpler one.
  const int64_t vectors =
      (3 * unit.lanes) % kVectorLanes == 0 && shape.n % (3 * unit.lanes) == 0 ? 3 : 2;
  const int64_t rows = FallbackRows(shape, unit, /*per_row=*/vectors, /*fixed=*/vectors + 1);
  s.FallbackSplit("tile_y", {-1, 128 / rows, rows});
  s.FallbackSplit("tile_x", {-1, 1, std::max(vectors * unit.lanes, kVectorLanes)});
  s.FallbackSplit("tile_k", {-1, 4});
  s.SetFallback("unroll_k", {1});
  s.SetFallback("prefetch", {1});
  return s;
}

space::ConfigSpace DenseArmSpace(const DenseShape& shape, const VectorUnit& unit) {
  CheckShape(shape);
  space::ConfigSpace s;
  s.DefineSplit("tile_y", shape.m, {space::SplitPolicy::kPaddedInnermost, 3, kMaxTile});
  // Columns in whole vectors of the target's (4 lanes on NEON, where the x86 space's 8 are two).
  s.DefineSplit("tile_x", shape.n, {space::SplitPolicy::kFactors, 3, kMaxTile, unit.lanes});
  // The reduction's inner loop in fours, unrolled: a row's four consecutive values of A load as
  // one vector whose lanes feed lane-indexed multiply-adds (`fmla v.4s, v.4s, v.s[i]`, the
  // codegen's lane-load pass), where broadcasting each from memory takes a load per value.
  s.DefineSplit("tile_k", shape.k, {space::SplitPolicy::kFactors, 2, kMaxTile, 4});
  s.DefineKnob("unroll_k", {1});
  s.DefineKnob("k_outer", {0, 1});
  s.DefineKnob("prefetch", {0, 1});
  // Two vectors of columns × 8 rows: 16 accumulators, 8 vectors of A and 2 of weights in NEON's
  // 32 registers (XNNPACK's aarch64 kernels tile 6 × 8 the same way).
  const int64_t vectors = 2;
  const int64_t rows = FallbackRows(shape, unit, /*per_row=*/vectors + 1, /*fixed=*/vectors);
  s.FallbackSplit("tile_y", {-1, 128 / rows, rows});
  s.FallbackSplit("tile_x", {-1, 1, vectors * unit.lanes});
  s.FallbackSplit("tile_k", {-1, 4});
  s.SetFallback("prefetch", {1});
  return s;
}

int64_t DenseWeightBlock(const space::ConfigEntity& config) { return config.Split("tile_x")[2]; }

ScheduledOp DensePackWeights(const DenseShape& shape, int64_t bn) {
  CheckShape(shape);
  TESSERA_USER_CHECK(bn > 0 && shape.n % bn == 0)
      << "dense weight packing: block " << bn << " does not divide n=" << shape.n;
  te::Tensor w = te::placeholder({I(shape.n), I(shape.k)}, DataType::Float(32), "W");
  te::Tensor packed = te::compute(
      {I(shape.n / bn), I(shape.k), I(bn)},
      [&](Var z, Var k, Var x) { return w(z * I(bn) + x, k); }, "packed_W", "dense_pack");
  te::Schedule s = te::create_schedule({packed});
  te::Stage pack = s[packed];
  pack.parallel(pack.axis(0));
  pack.vectorize(pack.axis(2));
  return {s, {w, packed}, 0};
}

ScheduledOp DenseX86(const DenseShape& shape, const space::ConfigEntity& config,
                     const OutputEpilogue* epilogue) {
  return TiledDense("dense.x86", shape, config, epilogue, /*bytes=*/false);
}

DenseShape DenseWords(const DenseShape& shape) { return {shape.m, shape.n, shape.k / 4}; }

ScheduledOp DenseInt8X86(const DenseShape& shape, const space::ConfigEntity& config,
                         const OutputEpilogue* epilogue) {
  CheckShape(shape);
  TESSERA_USER_CHECK(shape.k % 4 == 0)
      << "dense_int8.x86: the reduction (" << shape.k << ") must be a multiple of 4";
  ScheduledOp op = TiledDense("dense_int8.x86", DenseWords(shape), config, epilogue, true);
  op.flops = DenseFlops(shape);
  return op;
}

ScheduledOp DenseInt8Default(const DenseShape& shape) {
  CheckShape(shape);
  te::Tensor a = te::placeholder({I(shape.m), I(shape.k)}, DataType::UInt(8), "A");
  te::Tensor w = te::placeholder({I(shape.n), I(shape.k)}, DataType::Int(8), "W");
  ir::IterVar k = te::reduce_axis(I(shape.k), "k");
  te::Tensor c = te::compute(
      {I(shape.m), I(shape.n)},
      [&](Var y, Var x) {
        return te::sum(ir::cast(DataType::Int(32), a(y, k)) * ir::cast(DataType::Int(32), w(x, k)),
                       {k});
      },
      "C", "dense");
  return {te::create_schedule({c}), {a, w, c}, DenseFlops(shape)};
}

namespace {

ScheduledOp TiledDense(const char* name, const DenseShape& shape, const space::ConfigEntity& config,
                       const OutputEpilogue* epilogue, bool bytes) {
  CheckShape(shape);
  std::vector<int64_t> ty = config.Split("tile_y");
  std::vector<int64_t> tx = config.Split("tile_x");
  std::vector<int64_t> tk = config.Split("tile_k");
  // Rows padded to the register tile (kPaddedInnermost); the padding rows are never stored.
  const int64_t padded_m = PaddedExtent(shape.m, ty[2]);
  TESSERA_USER_CHECK((padded_m / ty[2]) % ty[1] == 0 && shape.n % (tx[1] * tx[2]) == 0 &&
                     shape.k % tk[1] == 0)
      << name << ": config " << config.ToString() << " does not tile the shape m=" << shape.m
      << " n=" << shape.n << " k=" << shape.k;
  int64_t bn = tx[2];
  const DataType element = bytes ? DataType::Int(32) : DataType::Float(32);
  te::Tensor a = te::placeholder({I(shape.m), I(shape.k)}, element, "A");
  te::Tensor packed = te::placeholder({I(shape.n / bn), I(shape.k), I(bn)}, element, "packed_W");
  te::Tensor c = PaddedProduct(shape, a, packed, padded_m, bytes);
  const te::Tensor rows =
      padded_m == shape.m ? c : CropPadded(c, {shape.m, shape.n}, "C_rows", "dense_rows");

  const te::Tensor result = epilogue ? epilogue->apply(rows) : rows;
  te::Schedule s = te::create_schedule({result});
  InlineEpilogueStages(s, {});
  te::Tensor cc = LocalAccumulator(s, c, result);
  te::Stage out = s[result];
  auto [yt, y_rest] = out.split(out.axis(0), I(ty[1] * ty[2]));
  auto [yo, yi] = out.split(y_rest, I(ty[2]));
  auto [xt, x_rest] = out.split(out.axis(1), I(tx[1] * tx[2]));
  auto [xo, xi] = out.split(x_rest, I(tx[2]));
  out.reorder({yt, xt, yo, xo, yi, xi});
  ir::IterVar block = out.fuse(yt, xt);
  out.parallel(block);
  out.vectorize(xi);

  te::Stage acc = s[cc];
  auto [ko, ki] = acc.split(acc.reduce_axis(0), I(tk[1]));
  if (config.Value("k_outer")) {
    // The accumulators of the whole block (tile_y × tile_x, in L1/L2) and the reduction in
    // chunks outermost: each chunk of the weight panel is read once for all the block's rows and
    // each chunk of A once for all its columns, where the register-tile nest reads the panel's
    // whole K again for every row tile (out of L2 once K × the panel's columns pass 1 MB).
    acc.compute_at(out, block);
    auto [acc_yo, acc_yi] = acc.split(acc.axis(0), I(ty[2]));
    auto [acc_xo, acc_xi] = acc.split(acc.axis(1), I(tx[2]));
    acc.reorder({ko, acc_yo, acc_xo, ki, acc_yi, acc_xi});
    acc.unroll(acc_yi);
    acc.vectorize(acc_xi);
  } else {
    acc.compute_at(out, xo);
    acc.reorder({ko, ki, acc.axis(0), acc.axis(1)});
    acc.unroll(acc.axis(0));
    acc.vectorize(acc.axis(1));
  }
  if (config.Value("unroll_k")) acc.unroll(ki);
  // The weights a line per reduction step ahead of their use: the next block's panel (the
  // first row tile of a block otherwise waits on memory for each of its lines; a model's
  // weights come from DRAM once per run), or with k_outer the next chunk. Cold weights, BERT's
  // shapes with 8 × 48 tiles: 0.88-0.91 of the time without (k_outer: 0.93); none where the
  // panel passes the pass's 256 KB (K = 3072), which measured no better with it.
  if (config.Value("prefetch") && config.Value("k_outer")) {
    acc.prefetch(packed, ko, ki);
  } else if (config.Value("prefetch")) {
    acc.prefetch(packed, block, ko);
  }

  std::vector<te::Tensor> args = {a, packed};
  if (epilogue) args.insert(args.end(), epilogue->inputs.begin(), epilogue->inputs.end());
  args.push_back(result);
  return {s, args, DenseFlops(shape)};
}

}  // namespace

ScheduledOp DenseDefault(const DenseShape& shape) {
  CheckShape(shape);
  te::Tensor a = te::placeholder({I(shape.m), I(shape.k)}, DataType::Float(32), "A");
  te::Tensor w = te::placeholder({I(shape.n), I(shape.k)}, DataType::Float(32), "W");
  ir::IterVar k = te::reduce_axis(I(shape.k), "k");
  te::Tensor c = te::compute(
      {I(shape.m), I(shape.n)}, [&](Var y, Var x) { return te::sum(a(y, k) * w(x, k), {k}); }, "C",
      "dense");
  return {te::create_schedule({c}), {a, w, c}, DenseFlops(shape)};
}

}  // namespace topi
}  // namespace tessera
