#include "bench/torch_conv.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <torch/csrc/api/include/torch/version.h>

#include <algorithm>
#include <chrono>

namespace tessera {
namespace bench {

double TorchConv2dSeconds(const Conv2dShape& c, int threads, int repeat) {
  at::set_num_threads(threads);
  at::manual_seed(1);
  at::Tensor data = at::rand({c.n, c.c, c.h, c.w}, at::kFloat);
  at::Tensor weight = at::rand({c.k, c.c, c.r, c.s}, at::kFloat);
  auto run = [&] {
    return at::conv2d(data, weight, /*bias=*/{}, {c.stride, c.stride}, {c.pad, c.pad});
  };
  run();  // warm up: oneDNN's JIT inside PyTorch, thread start
  double best = 1e30;
  for (int i = 0; i < repeat; ++i) {
    auto start = std::chrono::steady_clock::now();
    at::Tensor out = run();
    best = std::min(
        best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

std::string TorchVersion() {
  return "libtorch " + std::to_string(TORCH_VERSION_MAJOR) + "." +
         std::to_string(TORCH_VERSION_MINOR) + " (ATen; " + at::get_mkldnn_version() + ")";
}

}  // namespace bench
}  // namespace tessera
