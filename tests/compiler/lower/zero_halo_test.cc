#include "compiler/lower/zero_halo.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/ir/printer.h"
#include "compiler/lower/lower.h"
#include "compiler/te/schedule.h"
#include "runtime/ndarray.h"
#include "runtime/packed_func.h"
#include "tests/compiler/testing/llvm_backend.h"
#include "tests/compiler/testing/reference_check.h"
#include "tests/compiler/testing/user_error.h"

namespace tessera {
namespace {

using namespace te;  // NOLINT

// A [rows, cols, lanes] tensor in storage with `halo` rows and columns on each side.
struct Haloed {
  int64_t rows, cols, lanes, halo;
  runtime::NDArray array;
  Haloed(int64_t r, int64_t c, int64_t l, int64_t h, float fill)
      : rows(r), cols(c), lanes(l), halo(h) {
    array = runtime::NDArray::Empty({r + 2 * h, c + 2 * h, l}, {kDLFloat, 32, 1}, {kDLCPU, 0});
    for (int64_t i = 0; i < array.NumElements(); ++i) Data()[i] = fill;
  }
  float* Data() const { return static_cast<float*>(array->data); }
  // Element (y, x, z) of the tensor; y and x may reach into the halo.
  float& At(int64_t y, int64_t x, int64_t z) const {
    return Data()[((y + halo) * (cols + 2 * halo) + x + halo) * lanes + z];
  }
};

void Call(const testing::Backend& backend, const ir::PrimFunc& f,
          const std::vector<runtime::NDArray>& arrays) {
  runtime::Module mod = backend(f);
  std::vector<TesseraValue> values(arrays.size());
  std::vector<int32_t> codes(arrays.size());
  for (size_t i = 0; i < arrays.size(); ++i) {
    runtime::PackedFunc::SetArg(&values[i], &codes[i], arrays[i]);
  }
  runtime::RetValue ret;
  mod[f->name].CallPacked(
      runtime::PackedArgs(values.data(), codes.data(), static_cast<int>(arrays.size())), &ret);
}

// A 3x3 box sum over rows and columns (zero outside), vectorized along the lanes and parallel
// over rows, reading its input's halo as the padding and writing its output with a halo.
TEST(ZeroHaloTest, AStencilReadsItsInputsHaloAndZeroesItsOutputsHalo) {
  const int rows = 5, cols = 6, lanes = 8;
  Tensor in = placeholder({rows, cols, lanes}, DataType::Float(32), "in");
  IterVar dy = reduce_axis(3, "dy"), dx = reduce_axis(3, "dx");
  Tensor out = compute(
      {rows, cols, lanes},
      [&](Var y, Var x, Var z) {
        return sum(in(y + dy - 1, x + dx - 1, z), {dy, dx});
      },
      "out");
  Schedule s = create_schedule({out});
  s[out].parallel(out.axis(0));
  s[out].vectorize(out.axis(2));
  lower::LowerOptions options;
  options.arg_halos = {{1, 1, 0}, {0, 2, 0}};
  ir::PrimFunc f = lower::Lower(s, {in, out}, "box", options);

  for (const testing::Backend& backend : {testing::LLVMBackend(), testing::CBackend()}) {
    Haloed input(rows, cols, lanes, 1, 0.0f);
    for (int64_t y = 0; y < rows; ++y)
      for (int64_t x = 0; x < cols; ++x)
        for (int64_t z = 0; z < lanes; ++z)
          input.At(y, x, z) = static_cast<float>(y * 100 + x * 10 + z);
    // The output's storage: 0 rows and 2 columns around; garbage the kernel must overwrite.
    runtime::NDArray output =
        runtime::NDArray::Empty({rows, cols + 4, lanes}, {kDLFloat, 32, 1}, {kDLCPU, 0});
    float* o = static_cast<float*>(output->data);
    for (int64_t i = 0; i < output.NumElements(); ++i) o[i] = 1234.5f;
    Call(backend, f, {input.array, output});

    for (int64_t y = 0; y < rows; ++y) {
      for (int64_t x = -2; x < cols + 2; ++x) {
        for (int64_t z = 0; z < lanes; ++z) {
          float want = 0;
          if (x >= 0 && x < cols) {
            for (int64_t a = -1; a <= 1; ++a)
              for (int64_t b = -1; b <= 1; ++b) want += input.At(y + a, x + b, z);
          }
          EXPECT_EQ(o[(y * (cols + 4) + x + 2) * lanes + z], want) << y << " " << x << " " << z;
        }
      }
    }
  }
}

TEST(ZeroHaloTest, ArgumentsAreCheckedAgainstTheirStorageShape) {
  Tensor in = placeholder({4, 4}, DataType::Float(32), "in");
  Tensor out = compute(
      {4, 4}, [&](Var y, Var x) { return in(y, x); }, "out");
  lower::LowerOptions options;
  options.arg_halos = {{1, 1}};
  std::string text = ir::ToText(lower::Lower(create_schedule({out}), {in, out}, "copy", options));
  EXPECT_NE(text.find("copy: argument 0 ('in') must have shape [6, 6]"), std::string::npos) << text;
  EXPECT_NE(text.find("copy: argument 1 ('out') must have shape [4, 4]"), std::string::npos)
      << text;
}

TEST(ZeroHaloTest, HalosAreCheckedAsUserErrors) {
  Tensor in = placeholder({4, 4}, DataType::Float(32), "in");
  Tensor out = compute(
      {4, 4}, [&](Var y, Var x) { return in(y, x); }, "out");
  lower::LowerOptions options;
  options.arg_halos = {{1}};
  EXPECT_EQ(testing::UserErrorOf([&] {
              lower::Lower(create_schedule({out}), {in, out}, "copy", options);
            }),
            "copy: the halo of argument 'in' needs one non-negative size per dimension (2)");
  options.arg_halos = {{}, {0, 0}, {1, 1}};
  EXPECT_EQ(testing::UserErrorOf([&] {
              lower::Lower(create_schedule({out}), {in, out}, "copy", options);
            }),
            "copy: 3 argument halos for 2 arguments");
}

}  // namespace
}  // namespace tessera
