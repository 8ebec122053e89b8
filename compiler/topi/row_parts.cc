#include "compiler/topi/row_parts.h"

namespace tessera {
namespace topi {

int64_t ActivationBytes(const Conv2dShape& shape, int64_t out_channels) {
  return 4 * shape.n * (shape.c * shape.h * shape.w + out_channels * shape.oh() * shape.ow());
}

void DefineRowParts(space::ConfigSpace& space, const VectorUnit& unit, int64_t activation_bytes,
                    int64_t weight_bytes) {
  if (unit.threads <= 1 || 4 * activation_bytes < weight_bytes) return;
  // Added after records were written. A record without it ran split by channels, but the split
  // is the model's concern more than the kernel's (a kernel timed alone reads its input from
  // its own caches either way), so such a record splits by rows too.
  space.DefineKnob("row_parts", {unit.threads}, /*when_absent=*/unit.threads);
}

int64_t RowPartsOf(const space::ConfigEntity& config, int64_t row_tiles) {
  const int64_t parts = config.ValueOr("row_parts", 1);
  if (parts <= 1 || (row_tiles % parts != 0 && row_tiles < 4 * parts)) return 1;
  return parts;
}

}  // namespace topi
}  // namespace tessera
