#include "compiler/ops/window.h"

namespace tessera {
namespace ops {

int64_t WindowOut(int64_t in, int64_t k, int64_t stride, int64_t pad_begin, int64_t pad_end,
                  int64_t dilation, bool ceil_mode) {
  int64_t span = in + pad_begin + pad_end - ((k - 1) * dilation + 1);
  int64_t out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  // ONNX (like PyTorch) drops a last window that would start inside the end padding.
  if (ceil_mode && (out - 1) * stride >= in + pad_begin) --out;
  return out;
}

std::string CheckAutoPad(const std::string& auto_pad) {
  if (auto_pad != "NOTSET" && auto_pad != "VALID") {
    return "auto_pad=" + auto_pad + " is not supported (NOTSET, VALID)";
  }
  return "";
}

}  // namespace ops
}  // namespace tessera
