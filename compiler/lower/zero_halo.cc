#include "compiler/lower/zero_halo.h"

#include <string>

#include "compiler/ir/builtin.h"
#include "compiler/ir/op.h"

namespace tessera {
namespace lower {

namespace {

using ir::Expr;
using ir::Stmt;

Expr I32(int64_t v) { return ir::IntImm(ir::DataType::Int(32), v); }

Expr I64(int64_t v) { return ir::IntImm(ir::DataType::Int(64), v); }

// The halo of a storage box splits into slabs, one per (dimension d with a halo, side): index d
// in that side's halo, the dimensions before d inside the tensor (their halo belongs to their own
// slabs), the dimensions after d whole. For each index of the dimensions before d, a slab is one
// contiguous run of storage, zeroed by one memset; one flat loop goes over those indices. (Loop
// nests of stores, short and of constant extent, were unrolled by LLVM into thousands of
// instructions: 1.8 s more to build ResNet-50.)
Stmt ZeroSlab(const ArgBuffer& arg, const std::vector<int64_t>& storage, size_t d, bool high) {
  int64_t run = arg.halo[d], runs = 1;
  for (size_t j = d + 1; j < storage.size(); ++j) run *= storage[j];
  for (size_t j = 0; j < d; ++j) runs *= arg.shape[j];
  ir::Var outer(arg.tensor.name() + "_halo_run", ir::DataType::Int(32));
  // Storage index of the run's start: the outer indices (inside the tensor), then d's first
  // halo index, then zeros.
  Expr start = I32(0);
  int64_t inner_runs = runs;
  for (size_t j = 0; j < d; ++j) {
    inner_runs /= arg.shape[j];
    Expr coordinate = ir::floormod(ir::floordiv(outer, I32(inner_runs)), I32(arg.shape[j]));
    start = start * I32(storage[j]) + coordinate + I32(arg.halo[j]);
  }
  start = start * I32(storage[d]) + I32(high ? storage[d] - arg.halo[d] : 0);
  for (size_t j = d + 1; j < storage.size(); ++j) start = start * I32(storage[j]);
  const int64_t bytes = arg.tensor.dtype().bytes();
  Expr address = ir::Call(ir::DataType::Handle(), ir::builtin::kHandleAddBytes,
                          {arg.data, ir::Cast(ir::DataType::Int(64), start) * I64(bytes)});
  Stmt zero = ir::Evaluate(
      ir::Call(ir::DataType::Int(32), ir::builtin::kZeroBytes, {address, I64(run * bytes)}));
  return ir::For(outer, I32(0), I32(runs), ir::ForKind::kSerial, zero);
}

}  // namespace

Stmt ZeroOutputHalos(const Stmt& body, const std::vector<ArgBuffer>& args) {
  std::vector<Stmt> seq;
  for (const ArgBuffer& arg : args) {
    if (!arg.output || arg.halo.empty()) continue;
    const std::vector<int64_t> storage = arg.StorageShape();
    for (size_t d = 0; d < arg.halo.size(); ++d) {
      if (arg.halo[d] == 0) continue;
      seq.push_back(ZeroSlab(arg, storage, d, /*high=*/false));
      seq.push_back(ZeroSlab(arg, storage, d, /*high=*/true));
    }
  }
  if (seq.empty()) return body;
  seq.push_back(body);
  return ir::SeqStmt(seq);
}

}  // namespace lower
}  // namespace tessera
