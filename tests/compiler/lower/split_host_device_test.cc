// The host/device split through LowerForGPU: a bound elementwise nest becomes one kernel with
// its launch extents; a narrower loop of the same tag is guarded; intermediate stages at the
// root become device allocations made by the host; an unbound root stage is a UserError.
#include "compiler/lower/split_host_device.h"

#include <gtest/gtest.h>

#include "compiler/ir/printer.h"
#include "compiler/lower/lower.h"
#include "compiler/support/error.h"

namespace tessera {
namespace lower {
namespace {

using namespace te;  // NOLINT

TEST(SplitHostDeviceTest, BoundNestBecomesOneKernel) {
  Tensor A = placeholder({256}, DataType::Float(32), "A");
  Tensor B = compute(
      {256}, [&](Var i) { return A(i) * 2.0f; }, "B");
  Schedule s = create_schedule({B});
  auto [bx, tx] = s[B].split(B.axis(0), 64);
  s[B].bind(bx, "blockIdx.x");
  s[B].bind(tx, "threadIdx.x");
  HostDeviceSplit split = LowerForGPU(s, {A, B}, "scale");
  EXPECT_EQ(ir::ToText(split.host->body),
            "tessera.launch_kernel(\"scale_kernel0\", 4, 1, 1, 64, 1, 1, B, A)\n");
  EXPECT_EQ(split.host->attrs.at("arg0.dtype"), "float32");
  EXPECT_EQ(split.host->attrs.at("arg1.shape"), "256");
  ASSERT_EQ(split.kernels.size(), 1u);
  const ir::PrimFunc& k = split.kernels[0];
  EXPECT_EQ(k->attrs.at("grid"), "4,1,1");
  EXPECT_EQ(k->attrs.at("block"), "64,1,1");
  EXPECT_EQ(k->attrs.at("threads_per_block"), "64");
  EXPECT_EQ(ir::ToText(k->body),
            "let B.i.outer: int32 = tessera.thread_index(\"blockIdx.x\")\n"
            "let B.i.inner: int32 = tessera.thread_index(\"threadIdx.x\")\n"
            "B[((B.i.outer*64) + B.i.inner)] = (A[((B.i.outer*64) + B.i.inner)]*2f)\n");
}

TEST(SplitHostDeviceTest, RootIntermediatesAreDeviceAllocationsAndNarrowLoopsGuarded) {
  Tensor A = placeholder({128}, DataType::Float(32), "A");
  Tensor B = compute(
      {128}, [&](Var i) { return A(i) + 1.0f; }, "B");
  Tensor C = compute(
      {64}, [&](Var i) { return B(i * 2); }, "C");
  Schedule s = create_schedule({C});
  auto [bo, bi] = s[B].split(B.axis(0), 128);
  s[B].bind(bo, "blockIdx.x");
  s[B].bind(bi, "threadIdx.x");
  auto [co, ci] = s[C].split(C.axis(0), 64);
  s[C].bind(co, "blockIdx.x");
  s[C].bind(ci, "threadIdx.x");
  HostDeviceSplit split = LowerForGPU(s, {A, C}, "two");
  std::string host = ir::ToText(split.host->body);
  EXPECT_NE(host.find("allocate B: float32[128], global"), std::string::npos) << host;
  EXPECT_NE(host.find("tessera.launch_kernel(\"two_kernel0\", 1, 1, 1, 128, 1, 1, B, A)"),
            std::string::npos)
      << host;
  EXPECT_NE(host.find("tessera.launch_kernel(\"two_kernel1\", 1, 1, 1, 64, 1, 1, C, B)"),
            std::string::npos)
      << host;
  ASSERT_EQ(split.kernels.size(), 2u);
}

TEST(SplitHostDeviceTest, SameTagNarrowerLoopIsGuarded) {
  Tensor A = placeholder({64, 64}, DataType::Float(32), "A");
  Tensor B = compute(
      {64, 64}, [&](Var i, Var j) { return A(i, j) * 3.0f; }, "B");
  Schedule s = create_schedule({B});
  Tensor AL = s.cache_read(A, "shared", {B});
  auto [bo, bi] = s[B].split(B.axis(0), 8);
  s[B].bind(bo, "blockIdx.x");
  s[B].bind(bi, "threadIdx.y");
  s[B].bind(B.axis(1), "threadIdx.x");
  s[AL].compute_at(s[B], bo);
  // The shared copy is filled with threadIdx.x over 32 of the 64 columns' worth per pass.
  auto [ao, ai] = s[AL].split(s[AL].axis(1), 32);
  s[AL].bind(ai, "threadIdx.x");
  HostDeviceSplit split = LowerForGPU(s, {A, B}, "copy");
  ASSERT_EQ(split.kernels.size(), 1u);
  std::string k = ir::ToText(split.kernels[0]->body);
  EXPECT_EQ(split.kernels[0]->attrs.at("block"), "64,8,1");
  EXPECT_NE(k.find("if tessera.likely((tessera.thread_index(\"threadIdx.x\") < 32))"),
            std::string::npos)
      << k;
  EXPECT_NE(k.find("allocate A.shared: float32[512], shared"), std::string::npos) << k;
  EXPECT_NE(k.find("tessera.syncthreads()"), std::string::npos) << k;
}

TEST(SplitHostDeviceTest, UnboundRootStageIsAUserError) {
  Tensor A = placeholder({16}, DataType::Float(32), "A");
  Tensor B = compute(
      {16}, [&](Var i) { return A(i) + 1.0f; }, "B");
  Schedule s = create_schedule({B});
  try {
    LowerForGPU(s, {A, B}, "plain");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(),
                 "plain: the loop nest writing 'B' has no loop bound to blockIdx or threadIdx; "
                 "on a GPU every stage computed at the root must bind its loops (stage.bind)");
  }
}

TEST(SplitHostDeviceTest, PipelineDumpsEveryPass) {
  Tensor A = placeholder({32}, DataType::Float(32), "A");
  Tensor B = compute(
      {32}, [&](Var i) { return A(i) + 1.0f; }, "B");
  Schedule s = create_schedule({B});
  s[B].bind(B.axis(0), "threadIdx.x");
  std::vector<std::string> seen;
  LowerOptions opt;
  opt.dump_ir = [&](const std::string& pass, const ir::PrimFunc&) {
    if (seen.empty() || seen.back() != pass) seen.push_back(pass);
  };
  LowerForGPU(s, {A, B}, "inc", opt);
  EXPECT_EQ(seen, GPULoweringPasses());
}

}  // namespace
}  // namespace lower
}  // namespace tessera
