// The Arm anchor of //bench:arm_counts: one XNNPACK operator (Debian's arm64 libXNNPACK) run a
// given number of times, cross-built for aarch64 and executed under qemu-aarch64, so that its
// executed instructions are counted the way Tessera's are. Operators are created (weights packed)
// once; arm_counts runs it at two repeat counts and takes the difference, so only the runs count.
//
//   xnnpack_anchor conv --batch N --height H --width W --in-channels C --out-channels K
//                       --kernel R --stride S --pad P --groups G --repeat N
//   xnnpack_anchor matmul -m M -n N -k K --repeat N
#include <xnnpack.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

namespace {

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "xnnpack_anchor: %s\n", what.c_str());
  std::exit(1);
}

void Check(xnn_status status, const char* call) {
  if (status != xnn_status_success) {
    Fail(std::string(call) + " failed (status " + std::to_string(static_cast<int>(status)) + ")");
  }
}

std::vector<float> Filled(size_t n) {
  std::vector<float> data(n);
  for (size_t i = 0; i < n; ++i) data[i] = static_cast<float>((i * 7919) % 17) / 17.0f - 0.5f;
  return data;
}

void RunRepeated(xnn_operator_t op, size_t repeat) {
  for (size_t i = 0; i < repeat; ++i) Check(xnn_run_operator(op, nullptr), "xnn_run_operator");
}

struct ConvShape {
  size_t batch = 1, height = 0, width = 0, in_channels = 0, out_channels = 0, kernel = 0;
  size_t stride = 1, pad = 0, groups = 1;
};

void Conv(const ConvShape& s, size_t repeat) {
  if (s.in_channels % s.groups != 0 || s.out_channels % s.groups != 0) {
    Fail("--groups must divide both channel counts");
  }
  const size_t out_height = (s.height + 2 * s.pad - s.kernel) / s.stride + 1;
  const size_t out_width = (s.width + 2 * s.pad - s.kernel) / s.stride + 1;
  std::vector<float> input = Filled(s.batch * s.height * s.width * s.in_channels);
  std::vector<float> weights =
      Filled(s.out_channels * s.kernel * s.kernel * (s.in_channels / s.groups));
  std::vector<float> bias = Filled(s.out_channels);
  std::vector<float> output(s.batch * out_height * out_width * s.out_channels);
  const float inf = std::numeric_limits<float>::infinity();
  xnn_operator_t op = nullptr;
  Check(xnn_create_convolution2d_nhwc_f32(s.pad, s.pad, s.pad, s.pad, s.kernel, s.kernel, s.stride,
                                          s.stride, 1, 1, s.groups, s.in_channels / s.groups,
                                          s.out_channels / s.groups, s.in_channels, s.out_channels,
                                          weights.data(), bias.data(), -inf, inf, 0, &op),
        "xnn_create_convolution2d_nhwc_f32");
  Check(xnn_setup_convolution2d_nhwc_f32(op, s.batch, s.height, s.width, input.data(),
                                         output.data(), nullptr),
        "xnn_setup_convolution2d_nhwc_f32");
  RunRepeated(op, repeat);
  xnn_delete_operator(op);
}

void Matmul(size_t m, size_t n, size_t k, size_t repeat) {
  std::vector<float> a = Filled(m * k), b = Filled(n * k), c(m * n);
  const float inf = std::numeric_limits<float>::infinity();
  xnn_operator_t op = nullptr;
  Check(xnn_create_fully_connected_nc_f32(k, n, k, n, b.data(), nullptr, -inf, inf, 0, &op),
        "xnn_create_fully_connected_nc_f32");
  Check(xnn_setup_fully_connected_nc_f32(op, m, a.data(), c.data(), nullptr),
        "xnn_setup_fully_connected_nc_f32");
  RunRepeated(op, repeat);
  xnn_delete_operator(op);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"One XNNPACK operator, run --repeat times (the Arm anchor of //bench:arm_counts)"};
  app.require_subcommand(1);
  size_t repeat = 1;
  ConvShape conv;
  CLI::App* conv_cmd = app.add_subcommand("conv", "an NHWC convolution, square kernel");
  conv_cmd->add_option("--batch", conv.batch)->check(CLI::PositiveNumber);
  conv_cmd->add_option("--height", conv.height)->required()->check(CLI::PositiveNumber);
  conv_cmd->add_option("--width", conv.width)->required()->check(CLI::PositiveNumber);
  conv_cmd->add_option("--in-channels", conv.in_channels)->required()->check(CLI::PositiveNumber);
  conv_cmd->add_option("--out-channels", conv.out_channels)->required()->check(CLI::PositiveNumber);
  conv_cmd->add_option("--kernel", conv.kernel)->required()->check(CLI::PositiveNumber);
  conv_cmd->add_option("--stride", conv.stride)->check(CLI::PositiveNumber);
  conv_cmd->add_option("--pad", conv.pad);
  conv_cmd->add_option("--groups", conv.groups)->check(CLI::PositiveNumber);
  conv_cmd->add_option("--repeat", repeat, "runs")->required();
  size_t m = 0, n = 0, k = 0;
  CLI::App* matmul_cmd = app.add_subcommand("matmul", "an M x K by K x N fully-connected product");
  matmul_cmd->add_option("-m", m)->required()->check(CLI::PositiveNumber);
  matmul_cmd->add_option("-n", n)->required()->check(CLI::PositiveNumber);
  matmul_cmd->add_option("-k", k)->required()->check(CLI::PositiveNumber);
  matmul_cmd->add_option("--repeat", repeat, "runs")->required();
  CLI11_PARSE(app, argc, argv);
  Check(xnn_initialize(nullptr), "xnn_initialize");
  if (*conv_cmd) {
    Conv(conv, repeat);
  } else {
    Matmul(m, n, k, repeat);
  }
  return 0;
}
