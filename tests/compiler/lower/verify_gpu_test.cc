// The GPU validity check: thread count, block and grid dimensions, shared memory size and
// barriers under thread-dependent conditions are UserErrors naming the kernel and the limit.
#include "compiler/lower/verify_gpu.h"

#include <gtest/gtest.h>

#include "compiler/ir/builtin.h"
#include "compiler/lower/lower.h"
#include "compiler/lower/thread_sync.h"
#include "tests/compiler/lower/pass_test_util.h"
#include "tests/compiler/testing/user_error.h"

namespace tessera {
namespace lower {
namespace {

using tessera::testing::UserErrorOf;
using namespace testing;  // NOLINT

HostDeviceSplit OneKernel(const std::string& grid, const std::string& block, ir::Stmt body) {
  HostDeviceSplit split;
  split.kernels.push_back(ir::PrimFunc("k", {}, body, {{"grid", grid}, {"block", block}}));
  return split;
}

TEST(VerifyGPUTest, ValidKernelPasses) {
  EXPECT_EQ(UserErrorOf([] { VerifyGPUKernels(OneKernel("4,1,1", "256,4,1", ir::NoOp())); }),
            "<no UserError>");
}

TEST(VerifyGPUTest, TooManyThreads) {
  EXPECT_EQ(UserErrorOf([] { VerifyGPUKernels(OneKernel("1,1,1", "64,32,1", ir::NoOp())); }),
            "k: 2048 threads per block (64 x 32 x 1) exceed the device's limit of 1024");
  EXPECT_EQ(UserErrorOf([] { VerifyGPUKernels(OneKernel("1,1,1", "1,1,128", ir::NoOp())); }),
            "k: block 1 x 1 x 128 exceeds the per-dimension limits 1024 x 1024 x 64");
  EXPECT_EQ(UserErrorOf([] { VerifyGPUKernels(OneKernel("1,70000,1", "1,1,1", ir::NoOp())); }),
            "k: grid 1 x 70000 x 1 exceeds the limit of 65535 blocks in y and z");
}

TEST(VerifyGPUTest, TooMuchSharedMemory) {
  ir::Var a = Buffer("a"), b = Buffer("b");
  ir::Stmt body =
      ir::Allocate(a, F32(), {ir::IntImm(I32(), 8192)}, "shared",
                   ir::Allocate(b, F32(), {ir::IntImm(I32(), 4096)}, "shared", ir::NoOp()));
  EXPECT_EQ(UserErrorOf([&] { VerifyGPUKernels(OneKernel("1,1,1", "32,1,1", body)); }),
            "<no UserError>");
  body = ir::Allocate(a, F32(), {ir::IntImm(I32(), 8192)}, "shared",
                      ir::Allocate(b, F32(), {ir::IntImm(I32(), 4100)}, "shared", ir::NoOp()));
  EXPECT_EQ(UserErrorOf([&] { VerifyGPUKernels(OneKernel("1,1,1", "32,1,1", body)); }),
            "k: 49168 bytes of shared memory exceed the limit of 49152 bytes per block");
}

TEST(VerifyGPUTest, BarrierUnderThreadDependentCondition) {
  ir::Var tx("tx");
  ir::Expr index = ir::Call(I32(), ir::builtin::kThreadIndex, {ir::StringImm("threadIdx.x")});
  ir::Stmt body = ir::LetStmt(tx, index, ir::IfThenElse(tx < 16, SyncThreads()));
  EXPECT_EQ(UserErrorOf([&] { VerifyGPUKernels(OneKernel("1,1,1", "32,1,1", body)); }),
            "k: a shared-memory barrier sits under a condition that depends on the thread index, "
            "so some threads would never reach it (make the loops around the shared stage's "
            "compute_at point divide evenly)");
  ir::Stmt uniform = ir::LetStmt(tx, index, ir::IfThenElse(ir::Var("n") < 16, SyncThreads()));
  EXPECT_EQ(UserErrorOf([&] { VerifyGPUKernels(OneKernel("1,1,1", "32,1,1", uniform)); }),
            "<no UserError>");
}

TEST(VerifyGPUTest, LowerForGPUChecksTheSchedule) {
  te::Tensor A = te::placeholder({4096}, ir::DataType::Float(32), "A");
  te::Tensor B = te::compute(
      {4096}, [&](te::Var i) { return A(i) + 1.0f; }, "B");
  te::Schedule s = te::create_schedule({B});
  auto [bo, bi] = s[B].split(B.axis(0), 2048);
  s[B].bind(bo, "blockIdx.x");
  s[B].bind(bi, "threadIdx.x");
  EXPECT_EQ(
      UserErrorOf([&] {
        LowerForGPU(s, {A, B}, "wide");
      }),
      "wide_kernel0: 2048 threads per block (2048 x 1 x 1) exceed the device's limit of 1024");
}

}  // namespace
}  // namespace lower
}  // namespace tessera
