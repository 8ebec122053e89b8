#include "bench/onednn_conv.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <dnnl.hpp>

#include "runtime/time_evaluator.h"

namespace tessera {
namespace bench {
namespace {

void Fill(const dnnl::memory& mem, float scale) {
  if (mem.get_desc().data_type() != dnnl::memory::data_type::f32) {
    auto* bytes = static_cast<int8_t*>(mem.get_data_handle());
    for (size_t i = 0; i < mem.get_desc().get_size(); ++i) bytes[i] = int8_t(int(i % 17) - 8);
    return;
  }
  auto* data = static_cast<float*>(mem.get_data_handle());
  size_t count = mem.get_desc().get_size() / sizeof(float);
  for (size_t i = 0; i < count; ++i) data[i] = scale * static_cast<float>(int(i % 17) - 8);
}

}  // namespace

double OneDnnConv2dSeconds(const Conv2dShape& c, int threads, int repeat, bool int8,
                           bool cold_weights) {
  using dnnl::memory;
  omp_set_num_threads(threads);
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  const int64_t oh = (c.h + 2 * c.pad - c.r) / c.stride + 1;
  const int64_t ow = (c.w + 2 * c.pad - c.s) / c.stride + 1;
  using type = memory::data_type;
  auto any = [](memory::dims dims, type t) {
    return memory::desc(dims, t, memory::format_tag::any);
  };
  dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference,
                                       dnnl::algorithm::convolution_direct,
                                       any({c.n, c.c, c.h, c.w}, int8 ? type::u8 : type::f32),
                                       any({c.k, c.c, c.r, c.s}, int8 ? type::s8 : type::f32),
                                       any({c.n, c.k, oh, ow}, int8 ? type::s32 : type::f32),
                                       {c.stride, c.stride}, {c.pad, c.pad}, {c.pad, c.pad});
  dnnl::convolution_forward::primitive_desc pd(desc, engine);
  memory src(pd.src_desc(), engine), weights(pd.weights_desc(), engine), dst(pd.dst_desc(), engine);
  Fill(src, 0.125f);
  Fill(weights, 0.0625f);
  dnnl::convolution_forward conv(pd);
  auto run = [&] {
    conv.execute(stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}});
    stream.wait();
  };
  run();  // warm up: JIT of oneDNN's kernel, thread start
  double best = 1e30;
  for (int i = 0; i < repeat; ++i) {
    if (cold_weights) {
      runtime::EvictFromCaches(weights.get_data_handle(), weights.get_desc().get_size());
    }
    auto start = std::chrono::steady_clock::now();
    run();
    best = std::min(
        best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

}  // namespace bench
}  // namespace tessera
