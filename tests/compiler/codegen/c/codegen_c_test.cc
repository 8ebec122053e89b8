#include "compiler/codegen/c/codegen_c.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "compiler/codegen/c/c_module.h"
#include "compiler/lower/lower.h"
#include "compiler/support/error.h"
#include "runtime/error.h"
#include "runtime/ndarray.h"
#include "tests/compiler/testing/reference_check.h"

namespace tessera {
namespace {

using namespace te;  // NOLINT

struct Matmul {
  Tensor A, B, C;
  IterVar k;
  Matmul(int n, int m, int kk) {
    A = placeholder({n, kk}, DataType::Float(32), "A");
    B = placeholder({kk, m}, DataType::Float(32), "B");
    k = reduce_axis(kk, "k");
    C = compute(
        {n, m}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
  }
};

TEST(CodegenCTest, DefaultScheduleMatchesReference) {
  Matmul mm(7, 5, 3);
  Schedule s = create_schedule({mm.C});
  EXPECT_EQ(testing::CheckAgainstReference(s, {mm.A, mm.B, mm.C}, "mm", 1), "");
}

TEST(CodegenCTest, TiledVectorizedParallelMatmul) {
  Matmul mm(37, 45, 19);
  Schedule s = create_schedule({mm.C});
  auto [io, jo, ii, ji] = s[mm.C].tile(mm.C.axis(0), mm.C.axis(1), 8, 16);
  auto [ko, ki] = s[mm.C].split(mm.k, 4);
  s[mm.C].reorder({io, jo, ko, ii, ki, ji});
  s[mm.C].vectorize(ji);
  s[mm.C].parallel(io);
  s[mm.C].unroll(ki);
  EXPECT_EQ(testing::CheckAgainstReference(s, {mm.A, mm.B, mm.C}, "mm", 2), "");
}

TEST(CodegenCTest, ComputeAtCacheWriteAndVectorizedStore) {
  Matmul mm(32, 32, 16);
  Schedule s = create_schedule({mm.C});
  Tensor CL = s.cache_write(mm.C, "local");
  auto [io, jo, ii, ji] = s[mm.C].tile(s[mm.C].axis(0), s[mm.C].axis(1), 8, 8);
  s[CL].compute_at(s[mm.C], jo);
  s[CL].vectorize(s[CL].axis(1));
  s[mm.C].vectorize(ji);
  s[mm.C].parallel(io);
  EXPECT_EQ(testing::CheckAgainstReference(s, {mm.A, mm.B, mm.C}, "mm", 3), "");
  ir::PrimFunc f = lower::Lower(s, {mm.A, mm.B, mm.C}, "mm");
  std::string src = codegen::GenerateC({f});
  EXPECT_NE(src.find("TesseraBackendParallelLaunch"), std::string::npos);
  EXPECT_NE(src.find("__tessera_abi_version = 1"), std::string::npos);
}

TEST(CodegenCTest, ModuleSourceExportAndArgumentErrors) {
  Matmul mm(4, 4, 4);
  Schedule s = create_schedule({mm.C});
  runtime::Module mod = codegen::BuildCModule({lower::Lower(s, {mm.A, mm.B, mm.C}, "mm")});
  EXPECT_EQ(mod.type_key(), "c");
  EXPECT_NE(mod.GetSource("c").find("int32_t mm("), std::string::npos);
  std::string path = std::string(getenv("TEST_TMPDIR")) + "/mm.so";
  mod.export_library(path);
  runtime::Module loaded = runtime::Module::LoadFromFile(path);
  DLDevice cpu{kDLCPU, 0};
  auto a = runtime::NDArray::Empty({4, 4}, DLDataType{kDLFloat, 32, 1}, cpu);
  auto wrong = runtime::NDArray::Empty({4, 5}, DLDataType{kDLFloat, 32, 1}, cpu);
  auto ints = runtime::NDArray::Empty({4, 4}, DLDataType{kDLInt, 32, 1}, cpu);
  for (int i = 0; i < 16; ++i) a.Data<float>()[i] = 1.0f;
  loaded["mm"](a, a, a);
  try {
    loaded["mm"](a, wrong, a);
    FAIL() << "no error";
  } catch (const runtime::Error& e) {
    EXPECT_NE(std::string(e.what()).find("mm: argument 1 ('B') must have shape [4, 4]"),
              std::string::npos)
        << e.what();
  }
  try {
    loaded["mm"](a, a);
    FAIL() << "no error";
  } catch (const runtime::Error& e) {
    EXPECT_NE(std::string(e.what()).find("mm: expected 3 arguments (A, B, C)"), std::string::npos)
        << e.what();
  }
  try {
    loaded["mm"](a, ints, a);
    FAIL() << "no error";
  } catch (const runtime::Error& e) {
    EXPECT_NE(std::string(e.what()).find("must have dtype float32"), std::string::npos) << e.what();
  }
  try {
    loaded["mm"](a, 3, a);
    FAIL() << "no error";
  } catch (const runtime::Error& e) {
    EXPECT_NE(std::string(e.what()).find("mm: argument 1 ('B') must be a tensor"),
              std::string::npos)
        << e.what();
  }
}

TEST(CodegenCTest, ThreadBindingIsUserError) {
  Matmul mm(4, 4, 4);
  Schedule s = create_schedule({mm.C});
  s[mm.C].bind(mm.C.axis(0), "threadIdx.x");
  EXPECT_THROW(codegen::BuildCModule({lower::Lower(s, {mm.A, mm.B, mm.C}, "mm")}), UserError);
}

}  // namespace
}  // namespace tessera
