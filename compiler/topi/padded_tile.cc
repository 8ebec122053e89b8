#include "compiler/topi/padded_tile.h"

#include "compiler/ir/op.h"
#include "compiler/topi/index_constant.h"

namespace tessera {
namespace topi {

int64_t PaddedExtent(int64_t extent, int64_t tile) { return (extent + tile - 1) / tile * tile; }

ir::Expr ClampedRow(const ir::Var& y, int64_t rows, int64_t padded_rows) {
  return padded_rows == rows ? ir::Expr(y) : ir::min(y, I(rows - 1));
}

te::Tensor CropPadded(const te::Tensor& padded, const std::vector<int64_t>& shape,
                      const std::string& name, const std::string& tag) {
  std::vector<ir::Expr> extents;
  for (int64_t e : shape) extents.push_back(I(e));
  return te::compute(
      extents,
      [&](const std::vector<ir::Var>& i) {
        return padded(std::vector<ir::Expr>(i.begin(), i.end()));
      },
      name, tag);
}

}  // namespace topi
}  // namespace tessera
