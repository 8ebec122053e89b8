// The storage_flatten pass on small schedules: argument tensors become loads and stores of
// their row-major buffers, realized tensors become allocations (on the stack up to the limit,
// else in the workspace) with storage_align padding.
#include "compiler/lower/storage_flatten.h"

#include <gtest/gtest.h>

#include "compiler/ir/printer.h"
#include "compiler/lower/bound.h"
#include "compiler/lower/schedule_ops.h"

namespace tessera {
namespace lower {
namespace {

using namespace te;  // NOLINT

std::string Flat(const Schedule& s, const std::vector<Tensor>& args, int64_t stack_limit) {
  ScheduleAnalysis analysis = InferBound(s);
  std::vector<ArgBuffer> buffers;
  for (const Tensor& t : args) {
    ArgBuffer b;
    te::Stage stage = s.FindStage(t);
    b.tensor =
        stage.defined() ? analysis.stages.at(analysis.stage_of_op.at(t.op().get())).tensor : t;
    for (const ir::Expr& d : t.shape()) b.shape.push_back(*ir::AsConstInt(d));
    b.data = ir::Var(t.name(), ir::DataType::Handle());
    buffers.push_back(b);
  }
  return ir::ToText(StorageFlatten(ScheduleOps(analysis, args), buffers, analysis, stack_limit));
}

struct TwoStages {
  Tensor A, B, C;
  TwoStages() {
    A = placeholder({4, 3}, DataType::Float(32), "A");
    B = compute(
        {4, 3}, [&](Var i, Var j) { return A(i, j) * 2.0f; }, "B");
    C = compute(
        {4, 3}, [&](Var i, Var j) { return B(i, j) + A(i, j); }, "C");
  }
};

TEST(StorageFlattenTest, ArgumentsAreRowMajorAndIntermediatesAllocated) {
  TwoStages t;
  EXPECT_EQ(
      Flat(create_schedule({t.C}), {t.A, t.C}, 1024),
      "allocate B: float32[12], stack\nfor B.i in [0, +4) {\n  for B.j in [0, +3) {\n    "
      "B[((B.i*3) + B.j)] = (A[((B.i*3) + B.j)]*2f)\n  }\n}\nfor C.i in [0, +4) {\n  for C.j in "
      "[0, +3) {\n    C[((C.i*3) + C.j)] = (B[((C.i*3) + C.j)] + A[((C.i*3) + C.j)])\n  }\n}\n");
}

TEST(StorageFlattenTest, LargeIntermediatesGoToTheWorkspace) {
  TwoStages t;
  EXPECT_EQ(
      Flat(create_schedule({t.C}), {t.A, t.C}, 16),
      "allocate B: float32[12], global\nfor B.i in [0, +4) {\n  for B.j in [0, +3) {\n    "
      "B[((B.i*3) + B.j)] = (A[((B.i*3) + B.j)]*2f)\n  }\n}\nfor C.i in [0, +4) {\n  for C.j in "
      "[0, +3) {\n    C[((C.i*3) + C.j)] = (B[((C.i*3) + C.j)] + A[((C.i*3) + C.j)])\n  }\n}\n");
}

TEST(StorageFlattenTest, StorageAlignPadsTheRowStride) {
  TwoStages t;
  Schedule s = create_schedule({t.C});
  s[t.B].storage_align(t.B.axis(0), 8, 1);
  EXPECT_EQ(
      Flat(s, {t.A, t.C}, 1024),
      "allocate B: float32[36], stack\nfor B.i in [0, +4) {\n  for B.j in [0, +3) {\n    "
      "B[((B.i*9) + B.j)] = (A[((B.i*3) + B.j)]*2f)\n  }\n}\nfor C.i in [0, +4) {\n  for C.j in "
      "[0, +3) {\n    C[((C.i*3) + C.j)] = (B[((C.i*9) + C.j)] + A[((C.i*3) + C.j)])\n  }\n}\n");
}

}  // namespace
}  // namespace lower
}  // namespace tessera
