// Private to bench/: oneDNN's conv2d as a baseline (blocked layouts chosen by oneDNN).
#ifndef TESSERA_BENCH_ONEDNN_CONV_H_
#define TESSERA_BENCH_ONEDNN_CONV_H_

#include <cstdint>

namespace tessera {
namespace bench {

/// A conv2d in NCHW terms: batch, channels, height, width, filters, kernel, stride, padding.
struct Conv2dShape {
  int64_t n, c, h, w, k, r, s, stride, pad;
};

/// Best seconds of one oneDNN forward-inference convolution (primitive time only: layouts are
/// oneDNN's preferred blocked ones, reorders excluded) on `threads` OpenMP threads; with `int8`,
/// uint8 data times int8 weights into int32 (oneDNN's u8s8s32, VNNI where the CPU has it); with
/// `cold_weights`, the weights leave the CPU caches before every timed call (untimed), as
/// `tessera tune --cold-weights` times Tessera's kernels.
double OneDnnConv2dSeconds(const Conv2dShape& shape, int threads, int repeat, bool int8 = false,
                           bool cold_weights = false);

}  // namespace bench
}  // namespace tessera

#endif  // TESSERA_BENCH_ONEDNN_CONV_H_
