// The int8 convolution template (conv2d_NCHWc_int8.x86: uint8 × int8 into int32, four channels
// per vpdpbusd where the CPU has VNNI) against the float32 template on the same shapes, both on
// their untuned fallback configs, and against oneDNN's u8s8s32 and f32 convolutions, in one
// process, one thread. Prints each side's GOP/s and the ratios; correctness is the tests' job
// (tests/compiler/topi/conv2d_nchwc_int8_x86_test.cc).
//
//   bazel run -c opt //bench:int8_conv -- [--target 'llvm -mcpu=native'] [--repeat 20]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "bench/onednn_conv.h"
#include "bench/stats.h"
#include "common/command_line.h"
#include "compiler/driver/build.h"
#include "compiler/topi/conv2d_nchwc_x86.h"
#include "runtime/ndarray.h"
#include "runtime/thread_pool.h"

namespace tessera {
namespace {

using bench::BestSeconds;

// The op built for `target`, its arguments filled with small values, timed.
double OpSeconds(const topi::ScheduledOp& op, const std::string& target, int repeat) {
  runtime::Module module = build(op.schedule, op.args, Target(target), "op");
  runtime::PackedFunc f = module["op"];
  std::vector<runtime::NDArray> arrays;
  std::vector<TesseraValue> values(op.args.size());
  std::vector<int32_t> codes(op.args.size());
  for (size_t i = 0; i < op.args.size(); ++i) {
    std::vector<int64_t> shape;
    for (const ir::Expr& d : op.args[i].shape()) shape.push_back(*ir::AsConstInt(d));
    arrays.push_back(
        runtime::NDArray::Empty(shape, op.args[i].dtype().ToDL(), DLDevice{kDLCPU, 0}));
    std::vector<uint8_t> bytes(arrays.back().NumBytes());
    for (size_t b = 0; b < bytes.size(); ++b) bytes[b] = static_cast<uint8_t>(b % 7);
    arrays.back().CopyFromBytes(bytes.data(), bytes.size());
    runtime::PackedFunc::SetArg(&values[i], &codes[i], arrays[i]);
  }
  return BestSeconds(repeat, [&] {
    runtime::RetValue ret;
    f.CallPacked(runtime::PackedArgs(values.data(), codes.data(), static_cast<int>(values.size())),
                 &ret);
  });
}

int Run(const std::string& target, int repeat) {
  runtime::SetNumThreads(1);
  const std::vector<topi::Conv2dShape> shapes = {
      {1, 64, 56, 56, 64, 3, 3, 1, 1},   {1, 128, 28, 28, 128, 3, 3, 1, 1},
      {1, 256, 14, 14, 256, 3, 3, 1, 1}, {1, 512, 7, 7, 512, 3, 3, 1, 1},
      {1, 256, 56, 56, 64, 1, 1, 1, 0},  {1, 1024, 14, 14, 256, 1, 1, 1, 0}};
  std::printf("%-34s %9s %9s %9s %9s %8s %8s\n", "shape (N,C,H,W,K,R,S,stride,pad)", "int8 GOPS",
              "f32 GOPS", "dnnl i8", "dnnl f32", "i8/f32", "i8/dnnl");
  for (const topi::Conv2dShape& s : shapes) {
    const topi::ScheduledOp f32 = topi::Conv2dNCHWcX86(s, topi::Conv2dNCHWcX86Space(s).Fallback());
    const topi::ScheduledOp i8 =
        topi::Conv2dNCHWcInt8X86(s, topi::Conv2dNCHWcX86Space(topi::Conv2dWords(s)).Fallback(),
                                 static_cast<int32_t>(0x80808080u));
    const double ops = f32.flops * 1e-9;
    const double i8_s = OpSeconds(i8, target, repeat), f32_s = OpSeconds(f32, target, repeat);
    const bench::Conv2dShape d{s.n, s.c, s.h, s.w, s.k, s.r, s.s, s.stride, s.pad};
    const double dnnl_i8 = bench::OneDnnConv2dSeconds(d, 1, repeat, true);
    const double dnnl_f32 = bench::OneDnnConv2dSeconds(d, 1, repeat, false);
    char name[64];
    std::snprintf(name, sizeof name, "%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld", (long long)s.n,
                  (long long)s.c, (long long)s.h, (long long)s.w, (long long)s.k, (long long)s.r,
                  (long long)s.s, (long long)s.stride, (long long)s.pad);
    std::printf("%-34s %9.1f %9.1f %9.1f %9.1f %8.2f %8.2f\n", name, ops / i8_s, ops / f32_s,
                ops / dnnl_i8, ops / dnnl_f32, f32_s / i8_s, dnnl_i8 / i8_s);
  }
  std::printf(
      "i8/f32: the int8 template's speed over the float32 template's (above 1: faster); "
      "i8/dnnl: over oneDNN's u8s8s32\n");
  return 0;
}

}  // namespace
}  // namespace tessera

int main(int argc, char** argv) {
  std::string target = "llvm -mcpu=native";
  int repeat = 20;
  CLI::App app{"The int8 convolution template against the float32 one and oneDNN, one thread."};
  app.add_option("--target", target, "LLVM target the templates are built for");
  app.add_option("--repeat", repeat, "timed runs of each side (the best counts)")
      ->check(tessera::Positive());
  return tessera::RunCommandLine(app, argc, argv, std::cout, std::cerr,
                                 [&] { return tessera::Run(target, repeat); });
}
