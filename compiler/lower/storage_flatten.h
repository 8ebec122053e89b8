/// \file
/// Flattening: every tensor becomes a 1-D buffer. Arguments use the compact row-major layout of
/// their storage (the tensor plus its halo, if any: see `ArgBuffer::halo`);
/// each `ProducerRealize` becomes an `Allocate` of its region (with storage_align padding),
/// "stack" when it is at most `stack_limit_bytes` and of constant size, else "global".
#ifndef TESSERA_COMPILER_LOWER_STORAGE_FLATTEN_H_
#define TESSERA_COMPILER_LOWER_STORAGE_FLATTEN_H_

#include <unordered_map>
#include <vector>

#include "compiler/ir/stmt.h"
#include "compiler/lower/bound.h"

namespace tessera {
namespace lower {

/// An argument tensor and the handle variable holding its data pointer.
struct ArgBuffer {
  te::Tensor tensor;           ///< the argument (canonical tensor for computed ones)
  ir::Var data;                ///< handle variable of its data
  std::vector<int64_t> shape;  ///< constant shape
  /// Elements of storage before and after the tensor in each dimension (empty: none). Indices
  /// address the tensor; the storage around it can be read at indices in [-halo, shape + halo).
  std::vector<int64_t> halo;
  bool output = false;  ///< written by the function (an output of its schedule)

  /// The shape of the buffer the caller passes: `shape` plus the halo on both sides.
  std::vector<int64_t> StorageShape() const;
};

/// `body` with tensor accesses turned into flat loads and stores. Reads of a tensor that is
/// neither an argument nor realized throw `UserError` naming it.
ir::Stmt StorageFlatten(const ir::Stmt& body, const std::vector<ArgBuffer>& args,
                        const ScheduleAnalysis& analysis, int64_t stack_limit_bytes);

}  // namespace lower
}  // namespace tessera

#endif  // TESSERA_COMPILER_LOWER_STORAGE_FLATTEN_H_
