#include "compiler/topi/dense_cuda.h"

#include "compiler/support/error.h"
#include "compiler/topi/gpu_schedule.h"
#include "compiler/topi/index_constant.h"

namespace tessera {
namespace topi {

namespace {

// Threads and register tile per dimension at most 16: ≤ 256 threads, and with a k step ≤ 16 the
// two shared tiles take ≤ 2 × 256 × 16 × 4 bytes = 32 KiB, within every GPU's 48 KiB.
constexpr int64_t kMaxTile = 16;

}  // namespace

space::ConfigSpace DenseCUDASpace(const DenseShape& shape) {
  TESSERA_USER_CHECK(shape.m > 0 && shape.n > 0 && shape.k > 0)
      << "dense.cuda: dimensions must be positive, got m=" << shape.m << " n=" << shape.n
      << " k=" << shape.k;
  space::ConfigSpace s;
  s.DefineSplit("tile_y", shape.m, {space::SplitPolicy::kFactors, 3, kMaxTile});
  s.DefineSplit("tile_x", shape.n, {space::SplitPolicy::kFactors, 3, kMaxTile});
  s.DefineSplit("tile_k", shape.k, {space::SplitPolicy::kFactors, 2, kMaxTile});
  s.DefineKnob("vec_load", {1, 2, 4});
  s.DefineKnob("auto_unroll", {0, 512});
  // 8 × 8 threads with 4 × 4 outputs each and a k step of 8: a sound start on any GPU.
  s.FallbackSplit("tile_y", {-1, 8, 4});
  s.FallbackSplit("tile_x", {-1, 8, 4});
  s.FallbackSplit("tile_k", {-1, 8});
  return s;
}

ScheduledOp DenseCUDA(const DenseShape& shape, const space::ConfigEntity& config,
                      ir::DataType storage) {
  DenseCUDASpace(shape);  // checks the shape
  TESSERA_USER_CHECK(storage == ir::DataType::Float(32) || storage == ir::DataType::Float(16))
      << "dense.cuda: A and W are float32 or float16, not " << storage;
  std::vector<int64_t> ty = config.Split("tile_y");
  std::vector<int64_t> tx = config.Split("tile_x");
  std::vector<int64_t> tk = config.Split("tile_k");
  // The compute of DenseDefault (A[m, k], W[n, k], C[m, n]), in float32 whatever the storage,
  // with a schedule of its own.
  ScheduledOp plain = DenseDefault(shape);
  te::Tensor a = plain.args[0], w = plain.args[1], c = plain.args[2];
  if (storage != ir::DataType::Float(32)) {
    a = te::placeholder(a.shape(), storage, "A");
    w = te::placeholder(w.shape(), storage, "W");
    ir::IterVar k = te::reduce_axis(I(shape.k), "k");
    const ir::DataType f32 = ir::DataType::Float(32);
    c = te::compute(
        {I(shape.m), I(shape.n)},
        [&](ir::Var y, ir::Var x) {
          return te::sum(ir::Cast(f32, a(y, k)) * ir::Cast(f32, w(x, k)), {k});
        },
        "C", "dense");
  }
  te::Schedule s = te::create_schedule({c});
  te::Tensor cl = s.cache_write(c, "local");
  te::Tensor as = s.cache_read(a, "shared", {cl});
  te::Tensor ws = s.cache_read(w, "shared", {cl});

  te::Stage out = s[c];
  auto [by, y_rest] = out.split(out.axis(0), I(ty[1] * ty[2]));
  auto [ty_thread, y_reg] = out.split(y_rest, I(ty[2]));
  auto [bx, x_rest] = out.split(out.axis(1), I(tx[1] * tx[2]));
  auto [tx_thread, x_reg] = out.split(x_rest, I(tx[2]));
  out.reorder({by, bx, ty_thread, tx_thread, y_reg, x_reg});
  out.bind(by, "blockIdx.y");
  out.bind(bx, "blockIdx.x");
  out.bind(ty_thread, "threadIdx.y");
  out.bind(tx_thread, "threadIdx.x");

  te::Stage acc = s[cl];
  acc.compute_at(out, tx_thread);
  ir::IterVar acc_y = acc.axis(0), acc_x = acc.axis(1);
  auto [ko, ki] = acc.split(acc.reduce_axis(0), I(tk[1]));
  acc.reorder({ko, ki, acc_y, acc_x});
  if (config.Value("auto_unroll") > 0)
    acc.pragma(ko, "auto_unroll_max_step", I(config.Value("auto_unroll")));

  for (const te::Tensor& t : {as, ws}) {
    s[t].compute_at(acc, ko);
    CooperativeFetch(s[t], 1, ty[1], tx[1], config.Value("vec_load"));
  }
  return {s, {a, w, c}, plain.flops};
}

}  // namespace topi
}  // namespace tessera
