// Byte dot products (ir::dot4_u8s8): the reference evaluator's meaning pinned by hand, and every
// code generator against it — LLVM with VNNI (vpdpbusd on 16-, 8- and 4-lane vectors and on
// wider ones in pieces), LLVM without it (the widened fallback), and C.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "compiler/codegen/llvm/llvm_target.h"
#include "compiler/ir/op.h"
#include "compiler/lower/lower.h"
#include "compiler/te/reference_evaluator.h"
#include "compiler/te/schedule.h"
#include "compiler/te/tensor.h"
#include "tests/compiler/testing/llvm_backend.h"
#include "tests/compiler/testing/reference_check.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

ir::Expr I(int64_t v) { return ir::IntImm(ir::DataType::Int(32), v); }

// out[i] = Σ_k dot4_u8s8(a[i, k], b[i, k]) over n rows of k words, the rows vectorized by
// `lanes` (the accumulation a convolution's register tile runs).
struct DotSum {
  te::Tensor a, b, out;
  te::Schedule schedule;
};

DotSum MakeDotSum(int64_t n, int64_t k, int64_t lanes) {
  DotSum d;
  d.a = te::placeholder({I(n), I(k)}, ir::DataType::Int(32), "a");
  d.b = te::placeholder({I(n), I(k)}, ir::DataType::Int(32), "b");
  ir::IterVar rk = te::reduce_axis(I(k), "rk");
  d.out = te::compute(
      {I(n)}, [&](ir::Var i) { return te::sum(ir::dot4_u8s8(d.a(i, rk), d.b(i, rk)), {rk}); },
      "out");
  d.schedule = te::create_schedule({d.out});
  if (lanes > 1) {
    te::Stage s = d.schedule[d.out];
    auto [outer, inner] = s.split(s.axis(0), I(lanes));
    s.reorder({outer, s.reduce_axis(0), inner});
    s.vectorize(inner);
  }
  return d;
}

TEST(Dot4Test, TheReferenceSumsUnsignedTimesSignedBytes) {
  // a bytes (low first) 1, 2, 255, 128; b bytes 3, -1, -128, 127.
  const int32_t a = static_cast<int32_t>(0x80ff0201u);
  const int32_t b = static_cast<int32_t>(0x7f80ff03u);
  te::Tensor x = te::placeholder({I(1)}, ir::DataType::Int(32), "x");
  te::Tensor y = te::placeholder({I(1)}, ir::DataType::Int(32), "y");
  te::Tensor out = te::compute(
      {I(1)}, [&](ir::Var i) { return ir::dot4_u8s8(x(i), y(i)); }, "out");
  te::ReferenceEvaluator ref;
  ref.SetInput(x, {static_cast<double>(a)});
  ref.SetInput(y, {static_cast<double>(b)});
  EXPECT_EQ(ref.Compute(out)[0], 1 * 3 + 2 * -1 + 255 * -128 + 128 * 127);
  EXPECT_THROW(ir::dot4_u8s8(ir::FloatImm(ir::DataType::Float(32), 1), I(1)), UserError);
}

TEST(Dot4Test, EveryBackendMatchesTheReference) {
  const std::vector<std::pair<std::string, testing::Backend>> backends = {
      {"c", testing::CBackend()},
      {"llvm native", testing::LLVMBackend()},
      {"llvm x86-64 (SSE)", testing::LLVMBackend("llvm -mcpu=x86-64")},
      {"llvm x86-64-v3 (no VNNI)", testing::LLVMBackend("llvm -mcpu=x86-64-v3")},
  };
  for (const auto& [what, backend] : backends) {
    for (int64_t lanes : {1, 4, 8, 16, 32}) {
      DotSum d = MakeDotSum(64, 5, lanes);
      EXPECT_EQ(testing::CheckAgainstReference(d.schedule, {d.a, d.b, d.out}, "dot", 3,
                                               testing::ExactOnRandomWords(backend, 17)),
                "")
          << what << ", " << lanes << " lanes";
    }
  }
}

// The instruction, where the CPU has it, one per 16 lanes; none without VNNI.
TEST(Dot4Test, VnniTargetsAccumulateWithVpdpbusd) {
  DotSum d = MakeDotSum(64, 5, 32);
  ir::PrimFunc f = lower::Lower(d.schedule, {d.a, d.b, d.out}, "dot");
  const std::string vnni = testing::LLVMBackend("llvm -mcpu=icelake-server")(f).GetSource("ll");
  EXPECT_THAT(vnni, HasSubstr("@llvm.x86.avx512.vpdpbusd.512"));
  const std::string avx2 = testing::LLVMBackend("llvm -mcpu=x86-64-v3")(f).GetSource("ll");
  EXPECT_THAT(avx2, Not(HasSubstr("vpdpbusd")));
  const std::string avx_vnni = testing::LLVMBackend("llvm -mcpu=alderlake")(f).GetSource("ll");
  EXPECT_THAT(avx_vnni, HasSubstr("@llvm.x86.avx512.vpdpbusd.256"));
}

// On Arm: usdot (i8mm) takes the unsigned and signed bytes as they are; sdot (dotprod) takes the
// unsigned bytes with their top bit flipped and a second sdot for the offset; neither without
// them. (tests/deploy/aarch64_test.sh runs both under qemu inside an int8 model.)
TEST(Dot4Test, ArmTargetsAccumulateWithTheirDotProducts) {
  DotSum d = MakeDotSum(64, 5, 8);
  ir::PrimFunc f = lower::Lower(d.schedule, {d.a, d.b, d.out}, "dot");
  auto ir_for = [&](const std::string& target) {
    return testing::LLVMBackend(target)(f).GetSource("ll");
  };
  const std::string usdot = ir_for("llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a76 -mattr=+i8mm");
  EXPECT_THAT(usdot, HasSubstr("@llvm.aarch64.neon.usdot.v4i32.v16i8"));
  const std::string sdot = ir_for("llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a76");
  EXPECT_THAT(sdot, HasSubstr("@llvm.aarch64.neon.sdot.v4i32.v16i8"));
  EXPECT_THAT(sdot, HasSubstr("xor <16 x i8>"));  // the unsigned bytes' top bit flipped
  const std::string none = ir_for("llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72");
  EXPECT_THAT(none, Not(HasSubstr("dot.")));
}

}  // namespace
}  // namespace tessera
