/// \file
/// Sliding windows (convolutions and pooling): the output size along one axis, the padding modes
/// supported.
#ifndef TESSERA_COMPILER_OPS_WINDOW_H_
#define TESSERA_COMPILER_OPS_WINDOW_H_

#include <cstdint>
#include <string>

namespace tessera {
namespace ops {

/// Output size along one axis of a window of `k` taps `dilation` apart moved by `stride` over
/// `in` elements padded by `pad_begin` and `pad_end`; with `ceil_mode` a last partial window
/// counts (unless it would start inside the end padding, as in ONNX and PyTorch).
int64_t WindowOut(int64_t in, int64_t k, int64_t stride, int64_t pad_begin, int64_t pad_end,
                  int64_t dilation, bool ceil_mode);

/// "" when a window op's `auto_pad` is supported (NOTSET, VALID), else why it is refused.
std::string CheckAutoPad(const std::string& auto_pad);

}  // namespace ops
}  // namespace tessera

#endif  // TESSERA_COMPILER_OPS_WINDOW_H_
