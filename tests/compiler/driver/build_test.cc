// build(): dispatch on the target, the function name, the argument list, JIT versus exported
// library, and source access.
#include "compiler/driver/build.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "compiler/tessera.h"
#include "tests/compiler/driver/operator_check.h"
#include "tests/compiler/testing/user_error.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

struct Matmul {
  te::Tensor a, b, c;
  te::Schedule s;
};

Matmul MakeMatmul(int n) {
  Matmul m;
  m.a = te::placeholder({n, n}, DataType::Float(32), "A");
  m.b = te::placeholder({n, n}, DataType::Float(32), "B");
  te::IterVar k = te::reduce_axis(n, "k");
  m.c = te::compute(
      {n, n}, [&](Var i, Var j) { return te::sum(m.a(i, k) * m.b(k, j), {k}); }, "C");
  m.s = te::create_schedule({m.c});
  auto [jo, ji] = m.s[m.c].split(m.c.axis(1), 8);
  m.s[m.c].reorder({m.c.axis(0), jo, m.s[m.c].reduce_axis(0), ji});
  m.s[m.c].vectorize(ji);
  m.s[m.c].parallel(m.c.axis(0));
  return m;
}

using ::tessera::testing::UserErrorOf;

TEST(BuildTest, JitAndExportedLibraryAgree) {
  Matmul m = MakeMatmul(24);
  runtime::Module mod = build(m.s, {m.a, m.b, m.c}, Target("llvm -mcpu=native"), "matmul");
  EXPECT_EQ(mod.type_key(), "llvm");
  testing::ExpectModuleMatchesReference(mod, {m.a, m.b}, {m.c}, "matmul");

  std::string path = std::string(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp") +
                     "/build_test_matmul.so";
  mod.export_library(path);
  runtime::Module loaded = runtime::Module::LoadFromFile(path);
  std::vector<runtime::NDArray> jit_args = testing::MakeArrays({m.a, m.b, m.c}, 3);
  std::vector<runtime::NDArray> lib_args = testing::MakeArrays({m.a, m.b, m.c}, 3);
  testing::CallWithArrays(mod["matmul"], jit_args);
  testing::CallWithArrays(loaded["matmul"], lib_args);
  for (int i = 0; i < 24 * 24; ++i) {
    EXPECT_EQ(jit_args[2].Data<float>()[i], lib_args[2].Data<float>()[i]) << i;
  }
  std::remove(path.c_str());
}

TEST(BuildTest, CTargetGivesTheSameResults) {
  Matmul m = MakeMatmul(19);
  runtime::Module mod = build(m.s, {m.a, m.b, m.c}, Target("c"), "matmul");
  EXPECT_EQ(mod.type_key(), "c");
  testing::ExpectModuleMatchesReference(mod, {m.a, m.b}, {m.c}, "matmul");
}

TEST(BuildTest, CudaTargetNeedsBoundLoops) {
  Matmul m = MakeMatmul(8);
  EXPECT_THAT(
      UserErrorOf([&] {
        build(m.s, {m.a, m.b, m.c}, Target("cuda -arch=sm_90"), "mm");
      }),
      HasSubstr("mm: the loop nest writing 'C' has no loop bound to blockIdx or threadIdx"));
}

TEST(BuildTest, SourceIsAvailable) {
  Matmul m = MakeMatmul(16);
  runtime::Module mod =
      build(m.s, {m.a, m.b, m.c}, Target("llvm -mcpu=x86-64 -mattr=+avx2,+fma"), "matmul");
  EXPECT_THAT(mod.GetSource("ll"), HasSubstr("define i32 @matmul("));
  EXPECT_THAT(mod.GetSource("ll"), HasSubstr("<8 x float>"));
  EXPECT_THAT(mod.GetSource("asm"), HasSubstr("vfmadd"));
}

TEST(BuildTest, BadTargetsAndNamesAreUserErrors) {
  Matmul m = MakeMatmul(8);
  EXPECT_THAT(UserErrorOf([&] {
                build(m.s, {m.a, m.b, m.c}, Target("llvm -mcpu=native"), "3mm");
              }),
              HasSubstr("function name '3mm' is not a valid symbol name"));
  EXPECT_THAT(UserErrorOf([&] {
                build(m.s, {m.a, m.b, m.c}, Target("llvm -mtriple=bogus-x-y"), "mm");
              }),
              HasSubstr("LLVM has no code generator for triple"));
  EXPECT_THAT(UserErrorOf([&] {
                build(m.s, {m.a, m.b, m.c}, Target("llvm -mcpu=nonsense"), "mm");
              }),
              HasSubstr("CPU 'nonsense' is not known to LLVM"));
  EXPECT_THAT(UserErrorOf([&] { Target("gpu"); }), HasSubstr("unknown target kind 'gpu'"));
}

TEST(BuildTest, WrongArgumentListIsAUserError) {
  Matmul m = MakeMatmul(8);
  // The output is missing: the function could not write its result anywhere.
  EXPECT_NE(UserErrorOf([&] { build(m.s, {m.a, m.b}, Target("llvm"), "mm"); }), "<no UserError>");
}

TEST(BuildTest, CallsWithWrongArraysAreRejectedByTheKernel) {
  Matmul m = MakeMatmul(8);
  runtime::Module mod = build(m.s, {m.a, m.b, m.c}, Target("llvm"), "mm");
  std::vector<runtime::NDArray> args = testing::MakeArrays({m.a, m.b, m.c}, 1);
  args.pop_back();
  EXPECT_THROW(testing::CallWithArrays(mod["mm"], args), runtime::Error);
  runtime::NDArray wrong =
      runtime::NDArray::Empty({8, 9}, DLDataType{kDLFloat, 32, 1}, {kDLCPU, 0});
  args.push_back(wrong);
  EXPECT_THROW(testing::CallWithArrays(mod["mm"], args), runtime::Error);
}

}  // namespace
}  // namespace tessera
