#include "compiler/te/reference_evaluator.h"

#include <gtest/gtest.h>

#include "compiler/support/error.h"

namespace tessera {
namespace te {
namespace {

TEST(ReferenceEvaluatorTest, MatmulByHand) {
  Tensor A = placeholder({2, 3}, DataType::Float(32), "A");
  Tensor B = placeholder({3, 2}, DataType::Float(32), "B");
  IterVar k = reduce_axis(3, "k");
  Tensor C = compute(
      {2, 2}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
  ReferenceEvaluator ev;
  ev.SetInput(A, {1, 2, 3, 4, 5, 6});
  ev.SetInput(B, {1, 0, 0, 1, 1, 1});
  EXPECT_EQ(ev.Compute(C), (std::vector<double>{4, 5, 10, 11}));
}

TEST(ReferenceEvaluatorTest, MaxPoolWithPaddingAndIntegerDivision) {
  Tensor A = placeholder({5}, DataType::Float(32), "A");
  IterVar r = reduce_axis(3, "r");
  Tensor P = compute(
      {5},
      [&](Var i) {
        Expr x = i + r - 1;
        return max(if_then_else(x >= 0 && x < 5, A(x), -1e9f), {r});
      },
      "P");
  Tensor H = compute(
      {5}, [&](Var i) { return cast(DataType::Float(32), floordiv(i - 3, 2)); }, "H");
  ReferenceEvaluator ev;
  ev.SetInput(A, {3, 1, 4, 1, 5});
  EXPECT_EQ(ev.Compute(P), (std::vector<double>{3, 4, 4, 5, 5}));
  EXPECT_EQ(ev.Compute(H), (std::vector<double>{-2, -1, -1, 0, 0}));
}

TEST(ReferenceEvaluatorTest, MissingInputIsUserError) {
  Tensor A = placeholder({2}, DataType::Float(32), "A");
  Tensor B = compute(
      {2}, [&](Var i) { return A(i); }, "B");
  ReferenceEvaluator ev;
  EXPECT_THROW(ev.Compute(B), UserError);
  EXPECT_THROW(ev.SetInput(A, {1, 2, 3}), UserError);
}

}  // namespace
}  // namespace te
}  // namespace tessera
