/// \file
/// Private to `compiler/topi`: what the templates that pad an axis to whole register tiles inside
/// the kernel (kPaddedInnermost splits: dense, batch_matmul) share: the padded extent, the row
/// index a padded product reads, and the stage that keeps the real rows and columns of it.
#ifndef TESSERA_COMPILER_TOPI_PADDED_TILE_H_
#define TESSERA_COMPILER_TOPI_PADDED_TILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/expr.h"
#include "compiler/te/tensor.h"

namespace tessera {
namespace topi {

/// `extent` rounded up to a multiple of `tile`.
int64_t PaddedExtent(int64_t extent, int64_t tile);

/// The row a product padded to `padded_rows` reads for row `y`: `y` itself where nothing is
/// padded, else clamped to the last of the `rows` real ones (in bounds, and invariant in the
/// reduction, so the padding rows' loads hoist out of it).
ir::Expr ClampedRow(const ir::Var& y, int64_t rows, int64_t padded_rows);

/// A stage `name` (tag `tag`) of shape `shape` holding the leading elements of `padded`: what a
/// template writes from its padded product, only the last tile's stores guarded.
te::Tensor CropPadded(const te::Tensor& padded, const std::vector<int64_t>& shape,
                      const std::string& name, const std::string& tag);

}  // namespace topi
}  // namespace tessera

#endif  // TESSERA_COMPILER_TOPI_PADDED_TILE_H_
