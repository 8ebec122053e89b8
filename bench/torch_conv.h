// Private to bench/: PyTorch's conv2d (libtorch's ATen, Debian's libtorch 1.13) as a baseline.
// Kept in its own library so that only the binaries that compare against PyTorch link libtorch.
#ifndef TESSERA_BENCH_TORCH_CONV_H_
#define TESSERA_BENCH_TORCH_CONV_H_

#include <string>

#include "bench/onednn_conv.h"

namespace tessera {
namespace bench {

/// Best seconds of one `at::conv2d` call on NCHW float32 tensors (eager mode: whatever PyTorch
/// does inside one call, layout reorders of data and weights included) on `threads` threads
/// (`at::set_num_threads`).
double TorchConv2dSeconds(const Conv2dShape& shape, int threads, int repeat);

/// The libtorch version and the oneDNN it uses, for the report.
std::string TorchVersion();

}  // namespace bench
}  // namespace tessera

#endif  // TESSERA_BENCH_TORCH_CONV_H_
