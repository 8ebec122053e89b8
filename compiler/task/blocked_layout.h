/// \file
/// Host-side conversions between plain and blocked float32 arrays: how the measurer
/// prepares inputs for a blocked candidate and reads its output back, outside any timed call.
/// They mirror the compiled transforms of `compiler/topi/nchwc_layout.h` (tests compare both).
#ifndef TESSERA_COMPILER_TASK_BLOCKED_LAYOUT_H_
#define TESSERA_COMPILER_TASK_BLOCKED_LAYOUT_H_

#include <cstdint>
#include <vector>

namespace tessera {
namespace task {

/// Dimensions of an NCHW tensor.
struct NCHWDims {
  int64_t n = 1, c = 1, h = 1, w = 1;
};

/// `plain[n, c, h, w]` → `blocked[n, c / bn, h, w, c % bn]`; `bn` must divide `c`.
std::vector<float> ToNCHWc(const std::vector<float>& plain, const NCHWDims& dims, int64_t bn);

/// `blocked[n, c / bn, h, w, c % bn]` → `plain[n, c, h, w]`; `bn` must divide `c`.
std::vector<float> FromNCHWc(const std::vector<float>& blocked, const NCHWDims& dims, int64_t bn);

/// Weights `kernel[k, c, r, s]` (`dims` = {k, c, r, s}) →
/// `packed[k / oc_bn, c / ic_bn, r, s, c % ic_bn, k % oc_bn]`.
std::vector<float> ToOIHWio(const std::vector<float>& kernel, const NCHWDims& dims, int64_t ic_bn,
                            int64_t oc_bn);

/// Bytes of `plain[n, c, h, w]` (whole numbers in [-128, 255], as uint8 or int8 hold them) as
/// int32 words of four channels in blocks of `ic_words` words:
/// `words[n, c / (4 ic_words), h, w, (c / 4) % ic_words]`, channel c in byte c % 4 (the data of
/// `topi::Conv2dNCHWcInt8X86`); `4 ic_words` must divide `c`.
std::vector<int32_t> ToNCHWcWords(const std::vector<float>& plain, const NCHWDims& dims,
                                  int64_t ic_words);

/// Weight bytes `kernel[k, c, r, s]` (`dims` = {k, c, r, s}, whole numbers in [-128, 127]) as
/// int32 words of four input channels:
/// `words[k / oc_bn, c / (4 ic_words), r, s, (c / 4) % ic_words, k % oc_bn]`, channel c in byte
/// c % 4 (the weights of `topi::Conv2dNCHWcInt8X86`).
std::vector<int32_t> ToOIHWioWords(const std::vector<float>& kernel, const NCHWDims& dims,
                                   int64_t ic_words, int64_t oc_bn);

/// Bytes of a row-major `a[m, k]` (whole numbers in [-128, 255]) as int32 words of four
/// consecutive bytes of a row (the A of `topi::DenseInt8X86`); 4 must divide `k`.
std::vector<int32_t> ToRowWords(const std::vector<float>& a, int64_t m, int64_t k);

/// Dense weight bytes `w[n, k]` as words of four bytes of a row in column blocks of `bn`:
/// `packed[n / bn, k / 4, n % bn]` (the packed_W of `topi::DenseInt8X86`).
std::vector<int32_t> ToColumnBlockWords(const std::vector<float>& w, int64_t n, int64_t k,
                                        int64_t bn);

/// Dense weights `w[n, k]` → `packed[n / bn, k, n % bn]` (`topi::DensePackWeights`); `bn` must
/// divide `n`.
std::vector<float> ToColumnBlocks(const std::vector<float>& w, int64_t n, int64_t k, int64_t bn);

}  // namespace task
}  // namespace tessera

#endif  // TESSERA_COMPILER_TASK_BLOCKED_LAYOUT_H_
