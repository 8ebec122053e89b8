// The Arm anchor of //bench:arm_counts: one XNNPACK operator (Debian's arm64 libXNNPACK) run a
// given number of times, cross-built for aarch64 and executed under qemu-aarch64, so that its
// executed instructions are counted the way Tessera's are. Operators are created (weights packed)
// once; arm_counts runs it at two repeat counts and takes the difference, so only the runs count.
//
//   xnnpack_anchor conv BATCH HEIGHT WIDTH IN_CHANNELS OUT_CHANNELS KERNEL STRIDE PAD GROUPS REPEAT
//   xnnpack_anchor matmul M N K REPEAT
#include <xnnpack.h>

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
  if (status != xnn_status_success)
    Fail(std::string(call) + " failed (status " + std::to_string(static_cast<int>(status)) + ")");
}

size_t Arg(char** argv, int i) {
  char* end = nullptr;
  long value = std::strtol(argv[i], &end, 10);
  if (*end != '\0' || value < 0) Fail(std::string("not a count: ") + argv[i]);
  return static_cast<size_t>(value);
}

std::vector<float> Filled(size_t n) {
  std::vector<float> data(n);
  for (size_t i = 0; i < n; ++i) data[i] = static_cast<float>((i * 7919) % 17) / 17.0f - 0.5f;
  return data;
}

void RunRepeated(xnn_operator_t op, size_t repeat) {
  for (size_t i = 0; i < repeat; ++i) Check(xnn_run_operator(op, nullptr), "xnn_run_operator");
}

void Conv(char** argv) {
  const size_t batch = Arg(argv, 2), height = Arg(argv, 3), width = Arg(argv, 4);
  const size_t in_channels = Arg(argv, 5), out_channels = Arg(argv, 6), kernel = Arg(argv, 7);
  const size_t stride = Arg(argv, 8), pad = Arg(argv, 9), groups = Arg(argv, 10);
  const size_t repeat = Arg(argv, 11);
  if (groups == 0 || in_channels % groups != 0 || out_channels % groups != 0) Fail("bad groups");
  const size_t out_height = (height + 2 * pad - kernel) / stride + 1;
  const size_t out_width = (width + 2 * pad - kernel) / stride + 1;
  std::vector<float> input = Filled(batch * height * width * in_channels);
  std::vector<float> weights = Filled(out_channels * kernel * kernel * (in_channels / groups));
  std::vector<float> bias = Filled(out_channels);
  std::vector<float> output(batch * out_height * out_width * out_channels);
  const float inf = std::numeric_limits<float>::infinity();
  xnn_operator_t op = nullptr;
  Check(xnn_create_convolution2d_nhwc_f32(pad, pad, pad, pad, kernel, kernel, stride, stride, 1, 1,
                                          groups, in_channels / groups, out_channels / groups,
                                          in_channels, out_channels, weights.data(), bias.data(),
                                          -inf, inf, 0, &op),
        "xnn_create_convolution2d_nhwc_f32");
  Check(xnn_setup_convolution2d_nhwc_f32(op, batch, height, width, input.data(), output.data(),
                                         nullptr),
        "xnn_setup_convolution2d_nhwc_f32");
  RunRepeated(op, repeat);
  xnn_delete_operator(op);
}

void Matmul(char** argv) {
  const size_t m = Arg(argv, 2), n = Arg(argv, 3), k = Arg(argv, 4), repeat = Arg(argv, 5);
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
  const std::string op = argc > 1 ? argv[1] : "";
  if (!(op == "conv" && argc == 12) && !(op == "matmul" && argc == 6)) {
    Fail(
        "usage: xnnpack_anchor conv N H W C K KERNEL STRIDE PAD GROUPS REPEAT | "
        "matmul M N K REPEAT");
  }
  Check(xnn_initialize(nullptr), "xnn_initialize");
  if (op == "conv") {
    Conv(argv);
  } else {
    Matmul(argv);
  }
  return 0;
}
