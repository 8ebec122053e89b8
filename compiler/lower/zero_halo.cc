#include "compiler/lower/zero_halo.h"

#include <string>

#include "compiler/ir/op.h"

namespace tessera {
namespace lower {

namespace {

using ir::Expr;
using ir::Stmt;

Expr I32(int64_t v) { return ir::IntImm(ir::DataType::Int(32), v); }

Expr Zero(ir::DataType t) { return t.is_float() ? ir::FloatImm(t, 0.0) : ir::IntImm(t, 0); }

// The halo of a storage box splits into slabs, one per (dimension d with a halo, side): index d
// in that side's halo, the dimensions before d inside the tensor (their halo belongs to their own
// slabs), the dimensions after d whole. Each slab is one loop nest storing zero.
Stmt ZeroSlab(const ArgBuffer& arg, const std::vector<int64_t>& storage, size_t d, bool high) {
  const size_t nd = storage.size();
  std::vector<ir::Var> vars;
  for (size_t j = 0; j < nd; ++j) {
    vars.emplace_back(arg.tensor.name() + "_halo" + std::to_string(j), ir::DataType::Int(32));
  }
  Expr index = I32(0);
  for (size_t j = 0; j < nd; ++j) index = index * I32(storage[j]) + vars[j];
  Stmt stmt = ir::Store(arg.data, Zero(arg.tensor.dtype()), index);
  for (size_t j = nd; j-- > 0;) {
    int64_t min = 0, extent = storage[j];
    if (j < d) {
      min = arg.halo[j];
      extent = arg.shape[j];
    } else if (j == d) {
      min = high ? storage[j] - arg.halo[j] : 0;
      extent = arg.halo[j];
    }
    stmt = ir::For(vars[j], I32(min), I32(extent), ir::ForKind::kSerial, stmt);
  }
  return stmt;
}

}  // namespace

Stmt ZeroOutputHalos(const Stmt& body, const std::vector<ArgBuffer>& args) {
  std::vector<Stmt> seq;
  for (const ArgBuffer& arg : args) {
    if (!arg.output || arg.halo.empty()) continue;
    const std::vector<int64_t> storage = arg.StorageShape();
    for (size_t d = 0; d < storage.size(); ++d) {
      if (d >= arg.halo.size() || arg.halo[d] == 0) continue;
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
