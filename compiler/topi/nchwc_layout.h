/// \file
/// Layout transforms between plain and channel-blocked tensors, compiled like any operator.
///
/// Blocked convolutions take data as `NCHW[bn]c` (`blocked[n, c / bn, h, w, c % bn]`) and weights
/// as `OIHW[ic_bn]i[oc_bn]o`. A graph compiler runs the weight transform once per constant weight
/// and the data transforms only where the layout changes; these are those functions.
#ifndef TESSERA_COMPILER_TOPI_NCHWC_LAYOUT_H_
#define TESSERA_COMPILER_TOPI_NCHWC_LAYOUT_H_

#include <cstdint>

#include "compiler/topi/scheduled_op.h"

namespace tessera {
namespace topi {

/// `plain[n, c, h, w]` → `blocked[n, c / bn, h, w, c % bn]` (args: plain, blocked). Throws
/// `UserError` unless `bn` divides `c`.
ScheduledOp PackNCHWc(int64_t n, int64_t c, int64_t h, int64_t w, int64_t bn);

/// `blocked[n, c / bn, h, w, c % bn]` → `plain[n, c, h, w]` (args: blocked, plain). Throws
/// `UserError` unless `bn` divides `c`.
ScheduledOp UnpackNCHWc(int64_t n, int64_t c, int64_t h, int64_t w, int64_t bn);

/// `from[n, c / from_bn, h, w, c % from_bn]` → `to[n, c / to_bn, h, w, c % to_bn]` (args: from,
/// to): a value written for one blocked reader, read by another with another block. Throws
/// `UserError` unless both blocks divide `c`.
ScheduledOp RepackNCHWc(int64_t n, int64_t c, int64_t h, int64_t w, int64_t from_bn, int64_t to_bn);

/// Weights `kernel[k, c, r, s]` → `packed[k / oc_bn, c / ic_bn, r, s, c % ic_bn, k % oc_bn]`
/// (args: kernel, packed). Throws `UserError` unless the blocks divide `c` and `k`.
ScheduledOp PackOIHWio(int64_t k, int64_t c, int64_t r, int64_t s, int64_t ic_bn, int64_t oc_bn);

}  // namespace topi
}  // namespace tessera

#endif  // TESSERA_COMPILER_TOPI_NCHWC_LAYOUT_H_
