#include "compiler/topi/conv2d_winograd_x86.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "compiler/ir/op.h"
#include "compiler/support/error.h"
#include "compiler/te/tensor.h"
#include "compiler/topi/index_constant.h"

namespace tessera {
namespace topi {
namespace {

using ir::DataType;
using ir::Expr;
using ir::Var;

// The transforms of F(m×m, 3×3) (Lavin and Gray, "Fast Algorithms for Convolutional Neural
// Networks", 2016), interpolation points 0, ±1, ±2 and infinity: input Bᵀ (α×α), weights G
// (α×3), output Aᵀ (m×α).
struct WinogradMatrices {
  int64_t m, alpha;
  std::vector<std::vector<double>> bt, g, at;
};

const WinogradMatrices& MatricesOf(int64_t m) {
  static const WinogradMatrices f2{2,
                                   4,
                                   {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}},
                                   {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}},
                                   {{1, 1, 1, 0}, {0, 1, -1, -1}}};
  static const WinogradMatrices f4{
      4,
      6,
      {{4, 0, -5, 0, 1, 0},
       {0, -4, -4, 1, 1, 0},
       {0, 4, -4, -1, 1, 0},
       {0, -2, -1, 2, 1, 0},
       {0, 2, -1, -2, 1, 0},
       {0, 4, 0, -5, 0, 1}},
      {{1.0 / 4, 0, 0},
       {-1.0 / 6, -1.0 / 6, -1.0 / 6},
       {-1.0 / 6, 1.0 / 6, -1.0 / 6},
       {1.0 / 24, 1.0 / 12, 1.0 / 6},
       {1.0 / 24, -1.0 / 12, 1.0 / 6},
       {0, 0, 1}},
      {{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}}};
  TESSERA_INTERNAL_CHECK(m == 2 || m == 4) << "Winograd tile " << m;
  return m == 2 ? f2 : f4;
}

// Σ_k row[k] · term(k) over the nonzero coefficients only: after the loops are unrolled, the
// transforms are additions and a few multiplications by constants.
Expr LinearCombination(const std::vector<double>& row, const std::function<Expr(int64_t)>& term) {
  Expr sum;
  for (size_t k = 0; k < row.size(); ++k) {
    if (row[k] == 0) continue;
    Expr t = term(static_cast<int64_t>(k));
    if (row[k] == -1) {
      sum = sum.defined() ? sum - t : -t;
      continue;
    }
    if (row[k] != 1) t = ir::FloatImm(DataType::Float(32), row[k]) * t;
    sum = sum.defined() ? sum + t : t;
  }
  return sum;
}

// rows[v] picked by the (unrolled, hence constant) index v: a chain of selects that the
// simplifier folds to one row.
Expr ByIndex(const Expr& v, const std::vector<std::vector<double>>& rows,
             const std::function<Expr(int64_t)>& term) {
  Expr e = LinearCombination(rows.back(), term);
  for (int64_t k = static_cast<int64_t>(rows.size()) - 2; k >= 0; --k) {
    e = ir::select(v == I(k), LinearCombination(rows[k], term), e);
  }
  return e;
}

std::vector<int64_t> TileChoices(const Conv2dShape& s) {
  std::vector<int64_t> m;
  for (int64_t t : {4, 2}) {
    if (s.oh() % t == 0 && s.ow() % t == 0) m.push_back(t);
  }
  return m;
}

}  // namespace

bool WinogradApplies(const Conv2dShape& s) {
  return s.groups == 1 && s.r == 3 && s.s == 3 && s.stride == 1 && s.pad <= 2 && s.oh() > 0 &&
         s.ow() > 0 && !TileChoices(s).empty();
}

space::ConfigSpace Conv2dWinogradX86Space(const Conv2dShape& shape, const VectorUnit& unit) {
  TESSERA_USER_CHECK(shape.n > 0 && shape.c > 0 && shape.k > 0 && shape.h > 0 && shape.w > 0)
      << "conv2d_winograd: dimensions must be positive";
  TESSERA_USER_CHECK(WinogradApplies(shape))
      << "conv2d_winograd: needs a 3x3 kernel, stride 1, padding at most 2 and an even output, "
         "got a "
      << shape.r << "x" << shape.s << " kernel, stride " << shape.stride << ", padding "
      << shape.pad << ", output " << shape.oh() << "x" << shape.ow();
  space::ConfigSpace sp;
  sp.DefineSplit("tile_ic", shape.c, {space::SplitPolicy::kFactors, 2, 64});
  sp.DefineSplit("tile_oc", shape.k, {space::SplitPolicy::kFactors, 2, 64});
  sp.DefineKnob("tile_m", TileChoices(shape));
  sp.DefineKnob("tiles", {1, 2, 4, 7, 8, 14, 16});
  // Rows of tiles that share one pass over the transformed weights: one row keeps the
  // transformed tensors small, more rows read large weights (α² × 256² floats and up) fewer
  // times.
  sp.DefineKnob("rows", {1, 2, 4, 7, 14, 28});
  // Parallel tasks per block of rows, each for its share of the output blocks (transforming the
  // rows' input itself): with few blocks of rows, the threads share the work without each
  // reading all the transformed weights. Added after the first records: those ran one.
  sp.DefineKnob("oc_parts", {1, 2, 4}, /*when_absent=*/1);
  // Two vectors of output channels × 7 tiles: 14 accumulators, each broadcast feeding two
  // multiply-adds (as the direct template's fallback).
  sp.SetFallback("tile_ic", {-1, LargestDivisorAtMost(shape.c, unit.lanes)});
  int64_t oc_bn = LargestDivisorAtMost(shape.k, 2 * unit.lanes);
  if (oc_bn % unit.lanes != 0) oc_bn = LargestDivisorAtMost(shape.k, unit.lanes);
  sp.SetFallback("tile_oc", {-1, oc_bn});
  sp.SetFallback("tiles", {7});
  // Weights beyond the core's L2 once per image, else once per row.
  const int64_t weight_bytes = 36 * shape.c * shape.k * 4;
  sp.SetFallback("rows", {weight_bytes > unit.l2_bytes ? 28 : 1});
  return sp;
}

int64_t WinogradTile(const space::ConfigEntity& config) { return config.Value("tile_m"); }

double WinogradExtraWeightSeconds(const Conv2dShape& shape, int64_t m, double memory_bytes_per_s) {
  const int64_t alpha = m + 2;
  return 4.0 * shape.k * shape.c * (alpha * alpha - 9) / memory_bytes_per_s;
}

bool WinogradBeatsDirect(const Conv2dShape& shape, double direct_s, double winograd_s, int64_t m,
                         double memory_bytes_per_s) {
  return std::isfinite(winograd_s) &&
         winograd_s + WinogradExtraWeightSeconds(shape, m, memory_bytes_per_s) < direct_s;
}

std::vector<float> WinogradWeights(const std::vector<float>& kernel, const Conv2dShape& s,
                                   int64_t m, int64_t ic_bn, int64_t oc_bn) {
  TESSERA_USER_CHECK(s.r == 3 && s.s == 3 && s.c % ic_bn == 0 && s.k % oc_bn == 0 &&
                     static_cast<int64_t>(kernel.size()) == s.k * s.c * 9)
      << "WinogradWeights: " << kernel.size() << " weights for " << s.k << "x" << s.c
      << "x3x3 in blocks of " << ic_bn << " and " << oc_bn;
  const WinogradMatrices& w = MatricesOf(m);
  const int64_t alpha = w.alpha;
  std::vector<float> u(static_cast<size_t>(alpha * alpha * s.k * s.c));
  for (int64_t k = 0; k < s.k; ++k) {
    for (int64_t c = 0; c < s.c; ++c) {
      const float* g = &kernel[static_cast<size_t>((k * s.c + c) * 9)];
      for (int64_t xi = 0; xi < alpha; ++xi) {
        for (int64_t nu = 0; nu < alpha; ++nu) {
          double sum = 0;
          for (int r = 0; r < 3; ++r) {
            for (int q = 0; q < 3; ++q) sum += w.g[xi][r] * double(g[r * 3 + q]) * w.g[nu][q];
          }
          const int64_t index =
              ((((xi * alpha + nu) * (s.k / oc_bn) + k / oc_bn) * (s.c / ic_bn) + c / ic_bn) *
                   ic_bn +
               c % ic_bn) *
                  oc_bn +
              k % oc_bn;
          u[static_cast<size_t>(index)] = static_cast<float>(sum);
        }
      }
    }
  }
  return u;
}

namespace {

// The template's tensors: the input transform Bᵀ d B, the α² products with the transformed
// weights, and the output transform Aᵀ M A.
struct WinogradStages {
  te::Tensor data, weights, padded, input_cols, input_tiles, products, output_rows, conv;
};

WinogradStages WinogradCompute(const Conv2dShape& sh, int64_t ic_bn, int64_t oc_bn, int64_t m,
                               bool input_halo) {
  const WinogradMatrices& wm = MatricesOf(m);
  const int64_t alpha = wm.alpha;
  const int64_t tiles_h = sh.oh() / m, tiles_w = sh.ow() / m;
  const DataType f32 = DataType::Float(32);
  te::Tensor data =
      te::placeholder({I(sh.n), I(sh.c / ic_bn), I(sh.h), I(sh.w), I(ic_bn)}, f32, "data");
  te::Tensor weights =
      te::placeholder({I(alpha), I(alpha), I(sh.k / oc_bn), I(sh.c / ic_bn), I(ic_bn), I(oc_bn)},
                      f32, "winograd_weights");
  te::Tensor padded = PaddedBlockedData(data, sh, ic_bn, input_halo);
  // Input transform Bᵀ d B, one side at a time: columns, then rows.
  // [n, ty, ξ, j, cb, tx, ci]
  te::Tensor input_cols = te::compute(
      {I(sh.n), I(tiles_h), I(alpha), I(alpha), I(sh.c / ic_bn), I(tiles_w), I(ic_bn)},
      [&](const std::vector<Var>& i) {
        return ByIndex(i[2], wm.bt, [&](int64_t row) {
          return padded(i[0], i[4], i[1] * I(m) + I(row), i[5] * I(m) + i[3], i[6]);
        });
      },
      "winograd_input_cols");
  // [n, ty, ξ, ν, cb, tx, ci]
  te::Tensor input_tiles = te::compute(
      {I(sh.n), I(tiles_h), I(alpha), I(alpha), I(sh.c / ic_bn), I(tiles_w), I(ic_bn)},
      [&](const std::vector<Var>& i) {
        return ByIndex(i[3], wm.bt, [&](int64_t col) {
          return input_cols(i[0], i[1], i[2], I(col), i[4], i[5], i[6]);
        });
      },
      "winograd_input");
  // The α² products: [n, ty, ξ, ν, ocb, tx, oc]
  ir::IterVar cb = te::reduce_axis(I(sh.c / ic_bn), "cb");
  ir::IterVar ci = te::reduce_axis(I(ic_bn), "ci");
  te::Tensor products = te::compute(
      {I(sh.n), I(tiles_h), I(alpha), I(alpha), I(sh.k / oc_bn), I(tiles_w), I(oc_bn)},
      [&](const std::vector<Var>& i) {
        return te::sum(input_tiles(i[0], i[1], i[2], i[3], cb, i[5], ci) *
                           weights(i[2], i[3], i[4], cb, ci, i[6]),
                       {cb, ci});
      },
      "winograd_products");
  // Output transform Aᵀ M A: rows of the tile first, [n, ty, ξ, ocb, tx, b, oc] ...
  te::Tensor output_rows = te::compute(
      {I(sh.n), I(tiles_h), I(alpha), I(sh.k / oc_bn), I(tiles_w), I(m), I(oc_bn)},
      [&](const std::vector<Var>& i) {
        return ByIndex(i[5], wm.at, [&](int64_t nu) {
          return products(i[0], i[1], i[2], I(nu), i[3], i[4], i[6]);
        });
      },
      "winograd_output_rows");
  // ... then columns, into the output's layout.
  te::Tensor conv = te::compute(
      {I(sh.n), I(sh.k / oc_bn), I(sh.oh()), I(sh.ow()), I(oc_bn)},
      [&](const std::vector<Var>& i) {
        Expr ty = ir::floordiv(i[2], I(m)), a = ir::floormod(i[2], I(m));
        Expr tx = ir::floordiv(i[3], I(m)), b = ir::floormod(i[3], I(m));
        return ByIndex(a, wm.at,
                       [&](int64_t xi) { return output_rows(i[0], ty, I(xi), i[1], tx, b, i[4]); });
      },
      "conv_winograd");
  return {data, weights, padded, input_cols, input_tiles, products, output_rows, conv};
}

// A transform's columns or rows stage, computed at `scope` of `parent`: its two tile axes are
// unrolled and its block axis (6) vectorized, so a tile stays in registers.
void RegisterTileAt(te::Stage stage, const te::Stage& parent, const ir::IterVar& scope,
                    size_t unroll_a, size_t unroll_b) {
  stage.compute_at(parent, scope);
  stage.unroll(stage.axis(unroll_a));
  stage.unroll(stage.axis(unroll_b));
  stage.vectorize(stage.axis(6));
}

// The row's transformed input and products, computed for each row of tiles of the output
// stage o (its fused loop `row`), and the output transform's rows for each tile (loop tx).
void ScheduleRowStages(te::Schedule& s, const WinogradStages& w, te::Stage& o,
                       const ir::IterVar& row, const ir::IterVar& tx, int64_t reg_tiles) {
  const te::Tensor& input_tiles = w.input_tiles;
  const te::Tensor& input_cols = w.input_cols;
  const te::Tensor& products = w.products;
  const te::Tensor& output_rows = w.output_rows;
  te::Stage v = s[input_tiles];
  v.compute_at(o, row);
  {
    ir::IterVar vn = v.axis(0), vty = v.axis(1), xi = v.axis(2), nu = v.axis(3), vcb = v.axis(4),
                vtx = v.axis(5), vci = v.axis(6);
    v.reorder({vn, vty, vcb, vtx, xi, nu, vci});
    v.unroll(xi);
    v.unroll(nu);
    v.vectorize(vci);
    RegisterTileAt(s[input_cols], v, vtx, 2, 3);
  }
  te::Tensor acc = s.cache_write(products, "local");
  te::Stage p = s[products];
  p.compute_at(o, row);
  {
    auto [txo, txi] = p.split(p.axis(5), I(reg_tiles));
    // One slice of the weights (ξ, ν, output block) for every tile of the rows.
    p.reorder({p.axis(0), p.axis(2), p.axis(3), p.axis(4), p.axis(1), txo, txi, p.axis(6)});
    p.unroll(txi);
    p.vectorize(p.axis(6));
    te::Stage a_stage = s[acc];
    a_stage.compute_at(p, txo);
    ir::IterVar r_cb = a_stage.reduce_axis(0), r_ci = a_stage.reduce_axis(1);
    ir::IterVar atx = a_stage.axis(5), aoc = a_stage.axis(6);
    a_stage.reorder({r_cb, r_ci, atx, aoc});
    a_stage.unroll(atx);
    a_stage.vectorize(aoc);
  }
  RegisterTileAt(s[output_rows], o, tx, 2, 5);
}

}  // namespace

ScheduledOp Conv2dWinogradX86(const Conv2dShape& sh, const space::ConfigEntity& config,
                              const OutputEpilogue* epilogue, bool input_halo) {
  Conv2dWinogradX86Space(sh);  // checks the shape
  const int64_t ic_bn = config.Split("tile_ic")[1], oc_bn = config.Split("tile_oc")[1];
  const int64_t m = WinogradTile(config);
  TESSERA_USER_CHECK(sh.c % ic_bn == 0 && sh.k % oc_bn == 0 && sh.oh() % m == 0 && sh.ow() % m == 0)
      << "conv2d_winograd_NCHWc.x86: config " << config.ToString() << " does not tile the shape";
  const int64_t pad = sh.pad;
  const int64_t tiles_h = sh.oh() / m, tiles_w = sh.ow() / m;
  const int64_t reg_tiles = LargestDivisorAtMost(tiles_w, config.Value("tiles"));
  const int64_t block_rows = LargestDivisorAtMost(tiles_h, config.Value("rows"));
  const int64_t oc_parts = LargestDivisorAtMost(sh.k / oc_bn, config.Value("oc_parts"));

  const WinogradStages w = WinogradCompute(sh, ic_bn, oc_bn, m, input_halo);
  const te::Tensor& data = w.data;
  const te::Tensor& weights = w.weights;
  const te::Tensor& padded = w.padded;
  const te::Tensor& conv = w.conv;
  const bool pad_stage = pad > 0 && !input_halo;
  te::Tensor out = epilogue ? epilogue->apply(conv) : conv;

  te::Schedule s = te::create_schedule({out});
  // The transforms are stages of their own; the epilogue and the final transform inline.
  InlineEpilogueStages(
      s, {"data_pad", "winograd_input_cols", "winograd_input", "winograd_output_rows"});
  if (pad_stage) {
    te::Stage p = s[padded];
    p.parallel(p.fuse(p.fuse(p.axis(0), p.axis(1)), p.axis(2)));
  }
  // The output: rows of tiles in parallel, each tile's m×m outputs unrolled.
  te::Stage o = s[out];
  auto [ty, a] = o.split(o.axis(2), I(m));
  auto [tx, b] = o.split(o.axis(3), I(m));
  auto [ty_block, ty_in] = o.split(ty, I(block_rows));
  auto [oc_part, ocb] = o.split_nparts(o.axis(1), I(oc_parts));
  ir::IterVar n = o.axis(0), oc = o.axis(4);
  o.reorder({n, ty_block, oc_part, ty_in, ocb, tx, a, b, oc});
  ir::IterVar row = o.fuse(o.fuse(n, ty_block), oc_part);
  o.parallel(row);
  o.unroll(a);
  o.unroll(b);
  o.vectorize(oc);
  ScheduleRowStages(s, w, o, row, tx, reg_tiles);

  std::vector<te::Tensor> args = {data, weights};
  if (epilogue) args.insert(args.end(), epilogue->inputs.begin(), epilogue->inputs.end());
  args.push_back(out);
  return {s, args, Conv2dNCHWFlops(sh)};  // the direct convolution's, to compare GFLOP/s
}

}  // namespace topi
}  // namespace tessera
