// The schedule_ops pass on small schedules: the loop nest of a root stage, a producer attached
// inside its consumer's loop with its realized region, the guard of an uneven split, and a
// reduction's init and update.
#include "compiler/lower/schedule_ops.h"

#include <gtest/gtest.h>

#include "compiler/ir/printer.h"
#include "compiler/lower/bound.h"

namespace tessera {
namespace lower {
namespace {

using namespace te;  // NOLINT

std::string Nest(const Schedule& s, const std::vector<Tensor>& args) {
  return ir::ToText(ScheduleOps(InferBound(s), args));
}

TEST(ScheduleOpsTest, ComputeAtRealizesTheProducerInsideTheLoop) {
  Tensor A = placeholder({6}, DataType::Float(32), "A");
  Tensor B = compute(
      {6}, [&](Var i) { return A(i) * 2.0f; }, "B");
  Tensor C = compute(
      {6}, [&](Var i) { return B(i) + 1.0f; }, "C");
  Schedule s = create_schedule({C});
  auto [o, i] = s[C].split(C.axis(0), 4);
  s[B].compute_at(s[C], o);
  EXPECT_EQ(Nest(s, {A, C}),
            "attr compute_scope = \"C\" on C\nfor C.i.outer in [0, +2) {\n  realize "
            "B[(C.i.outer*4):+4]\n  attr compute_scope = \"B\" on B\n  for B.i in [(C.i.outer*4), "
            "+4) {\n    if tessera.likely(((B.i >= 0) && (B.i < 6))) {\n      B(B.i) = "
            "(A(B.i)*2f)\n    }\n  }\n  for C.i.inner in [0, +4) {\n    if "
            "tessera.likely((((C.i.outer*4) + C.i.inner) < 6)) {\n      C(((C.i.outer*4) + "
            "C.i.inner)) = (B(((C.i.outer*4) + C.i.inner)) + 1f)\n    }\n  }\n}\n");
}

TEST(ScheduleOpsTest, ReductionHasInitAndUpdate) {
  Tensor A = placeholder({3, 5}, DataType::Float(32), "A");
  IterVar k = reduce_axis(5, "k");
  Tensor S = compute(
      {3}, [&](Var i) { return sum(A(i, k), {k}, A(i, k) > 0.0f); }, "S");
  Schedule s = create_schedule({S});
  s[S].split(k, 2);
  EXPECT_EQ(
      Nest(s, {A, S}),
      "attr compute_scope = \"S\" on S\nfor S.i in [0, +3) {\n  S(S.i) = 0f\n  for k.outer in [0, "
      "+3) {\n    for k.inner in [0, +2) {\n      if tessera.likely((((k.outer*2) + k.inner) < 5)) "
      "{\n        if (A(S.i, ((k.outer*2) + k.inner)) > 0f) {\n          S(S.i) = (S(S.i) + A(S.i, "
      "((k.outer*2) + k.inner)))\n        }\n      }\n    }\n  }\n}\n");
}

// rfactor of a conditional reduction over an uneven split: the factored stage checks that k is
// in its domain before it evaluates the condition, which reads A (k = 8 would read A[2, 0]).
TEST(ScheduleOpsTest, DomainCheckOfRfactorDominatesTheConditionsReads) {
  Tensor A = placeholder({2, 8}, DataType::Float(32), "A");
  IterVar k = reduce_axis(8, "k");
  Tensor S = compute(
      {2}, [&](Var i) { return sum(A(i, k), {k}, A(i, k) > 0.0f); }, "S");
  Schedule s = create_schedule({S});
  auto [ko, ki] = s[S].split(k, 3);
  s.rfactor(S, ki);
  EXPECT_EQ(Nest(s, {A, S}),
            "realize S.rf[0:+3, 0:+2]\nattr compute_scope = \"S.rf\" on S.rf\nfor S.rf.i in [0, "
            "+3) {\n  for S.rf.j in [0, +2) {\n    S.rf(S.rf.i, S.rf.j) = 0f\n    for k.outer.rf "
            "in [0, +3) {\n      if tessera.likely((((k.outer.rf*3) + S.rf.i) < 8)) {\n        if "
            "(A(S.rf.j, "
            "((k.outer.rf*3) + S.rf.i)) > 0f) {\n          S.rf(S.rf.i, S.rf.j) = (S.rf(S.rf.i, "
            "S.rf.j) + A(S.rf.j, ((k.outer.rf*3) + S.rf.i)))\n        }\n      }\n    }\n  "
            "}\n}\nattr compute_scope = \"S\" on S\nfor S.i in [0, +2) {\n  S(S.i) = 0f\n  for "
            "k.inner.v in [0, +3) {\n    S(S.i) = (S(S.i) + S.rf(k.inner.v, S.i))\n  }\n}\n");
}

}  // namespace
}  // namespace lower
}  // namespace tessera
