// The thread_sync pass on hand-built kernels: a barrier between the write of a shared buffer
// and its read; inside a serial loop also one before the write (the previous iteration's
// readers); none for buffers that are not shared.
#include "compiler/lower/thread_sync.h"

#include <gtest/gtest.h>

#include "tests/compiler/lower/pass_test_util.h"

namespace tessera {
namespace lower {
namespace {

using namespace testing;  // NOLINT

struct Kernel {
  ir::Var tx{"tx"}, ko{"ko"}, sh = Buffer("sh"), out = Buffer("out"), in = Buffer("in");
  // sh[tx] = in[tx]; out[tx] = sh[31 - tx]
  ir::Stmt Body() const {
    return ir::SeqStmt(
        {ir::Store(sh, At(in, tx), tx), ir::Store(out, At(sh, ir::IntImm(I32(), 31) - tx), tx)});
  }
  ir::Stmt Wrap(ir::Stmt body, const std::string& scope) const {
    return ir::For(tx, ir::IntImm(I32(), 0), ir::IntImm(I32(), 32), ir::ForKind::kThreadBinding,
                   ir::Allocate(sh, F32(), {ir::IntImm(I32(), 32)}, scope, body), "threadIdx.x");
  }
};

TEST(ThreadSyncTest, BarrierBetweenWriteAndRead) {
  Kernel k;
  EXPECT_EQ(ir::ToText(InsertSharedMemoryBarriers(k.Wrap(k.Body(), "shared"))),
            "for tx in [0, +32) thread_binding threadIdx.x {\n"
            "  allocate sh: float32[32], shared\n"
            "  sh[tx] = in[tx]\n"
            "  tessera.syncthreads()\n"
            "  out[tx] = sh[(31 - tx)]\n"
            "}\n");
}

TEST(ThreadSyncTest, InsideALoopTheWriteWaitsForThePreviousReads) {
  Kernel k;
  std::string text =
      ir::ToText(InsertSharedMemoryBarriers(k.Wrap(Loop(k.ko, 4, k.Body()), "shared")));
  EXPECT_EQ(text,
            "for tx in [0, +32) thread_binding threadIdx.x {\n"
            "  allocate sh: float32[32], shared\n"
            "  for ko in [0, +4) {\n"
            "    tessera.syncthreads()\n"
            "    sh[tx] = in[tx]\n"
            "    tessera.syncthreads()\n"
            "    out[tx] = sh[(31 - tx)]\n"
            "  }\n"
            "}\n");
}

TEST(ThreadSyncTest, LocalBuffersNeedNoBarrier) {
  Kernel k;
  std::string text = ir::ToText(InsertSharedMemoryBarriers(k.Wrap(k.Body(), "local")));
  EXPECT_EQ(text.find("syncthreads"), std::string::npos) << text;
}

}  // namespace
}  // namespace lower
}  // namespace tessera
