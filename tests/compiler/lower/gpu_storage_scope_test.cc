// The gpu_storage_scope pass on hand-built statements: allocations inside bound loops go to
// registers unless shared, allocations outside every kernel go to device global memory, and a
// shared buffer outside the kernels is a UserError.
#include "compiler/lower/gpu_storage_scope.h"

#include <gtest/gtest.h>

#include "compiler/support/error.h"
#include "tests/compiler/lower/pass_test_util.h"

namespace tessera {
namespace lower {
namespace {

using namespace testing;  // NOLINT

ir::Stmt Fill(const ir::Var& buf, const ir::Var& i) {
  return ir::Store(buf, ir::FloatImm(F32(), 0.0), i);
}

TEST(GPUStorageScopeTest, InsideAndOutsideKernels) {
  ir::Var tx("tx"), i("i"), reg = Buffer("reg"), sh = Buffer("sh"), tmp = Buffer("tmp");
  ir::Stmt kernel =
      ir::For(tx, ir::IntImm(I32(), 0), ir::IntImm(I32(), 32), ir::ForKind::kThreadBinding,
              ir::LetStmt(i, ir::IntImm(I32(), 0),
                          ir::Allocate(reg, F32(), {ir::IntImm(I32(), 4)}, "stack",
                                       ir::Allocate(sh, F32(), {ir::IntImm(I32(), 32)}, "shared",
                                                    ir::SeqStmt({Fill(reg, i), Fill(sh, tx)})))),
              "threadIdx.x");
  ir::Stmt root = ir::Allocate(tmp, F32(), {ir::IntImm(I32(), 8)}, "stack", kernel);
  EXPECT_EQ(ir::ToText(AssignGPUStorageScopes(root)),
            "allocate tmp: float32[8], global\n"
            "for tx in [0, +32) thread_binding threadIdx.x {\n"
            "  let i: int32 = 0\n"
            "  allocate reg: float32[4], local\n"
            "  allocate sh: float32[32], shared\n"
            "  reg[i] = 0f\n"
            "  sh[tx] = 0f\n"
            "}\n");
}

TEST(GPUStorageScopeTest, SharedOutsideKernelsIsAUserError) {
  ir::Var i("i"), sh = Buffer("sh");
  ir::Stmt root = ir::Allocate(sh, F32(), {ir::IntImm(I32(), 8)}, "shared",
                               Loop(i, 8, ir::Store(sh, ir::FloatImm(F32(), 0.0), i)));
  try {
    AssignGPUStorageScopes(root);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(),
                 "buffer 'sh' is in shared memory but is computed outside every loop bound to "
                 "blockIdx or threadIdx (compute_at it inside the block's loops)");
  }
}

}  // namespace
}  // namespace lower
}  // namespace tessera
