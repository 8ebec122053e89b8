#include "compiler/te/tensor.h"

#include <gtest/gtest.h>

#include "compiler/ir/printer.h"
#include "compiler/ir/structural_equal.h"
#include "compiler/support/error.h"
#include "tests/compiler/testing/user_error.h"

namespace tessera {
namespace te {
namespace {

using ::tessera::testing::UserErrorOf;

TEST(TensorTest, ComputeRecordsAxesAndReduction) {
  Tensor A = placeholder({4, 6}, DataType::Float(32), "A");
  IterVar k = reduce_axis(6, "k");
  Tensor S = compute(
      {4}, [&](Var i) { return sum(A(i, k), {k}); }, "S");
  const auto* op = S.op().as<ComputeOpNode>();
  ASSERT_TRUE(op);
  EXPECT_EQ(op->axis.size(), 1u);
  ASSERT_EQ(op->reduce_axis.size(), 1u);
  EXPECT_TRUE(op->reduce_axis[0].same_as(k));
  EXPECT_EQ(S.ndim(), 1u);
  EXPECT_EQ(S.dtype(), DataType::Float(32));
  ASSERT_EQ(S.op().InputTensors().size(), 1u);
  EXPECT_TRUE(S.op().InputTensors()[0].same_tensor(A));
  EXPECT_EQ(ir::ToText(op->body), "sum(A(S.i, k), axis=[k in [0, +6)])");
}

TEST(TensorTest, StructurallyEqualComputesHashAlike) {
  auto make = [] {
    Tensor A = placeholder({8}, DataType::Float(32), "A");
    return compute(
        {8}, [&](Var i) { return A(i) * 2.0f; }, "B");
  };
  Tensor b1 = make(), b2 = make();
  EXPECT_TRUE(ir::StructuralEqual(b1.op(), b2.op()));
  EXPECT_EQ(ir::StructuralHash(b1.op()), ir::StructuralHash(b2.op()));
}

TEST(TensorTest, BadDefinitionsAreUserErrors) {
  Tensor A = placeholder({4, 6}, DataType::Float(32), "A");
  EXPECT_EQ(UserErrorOf([&] { A(1); }), "tensor 'A' has 2 dimensions but is indexed with 1");
  EXPECT_EQ(UserErrorOf([&] { A.axis(0); }),
            "tensor 'A' is a placeholder and has no axes to schedule");
  Tensor B = compute(
      {4, 6}, [&](Var i, Var j) { return A(i, j); }, "B");
  EXPECT_EQ(UserErrorOf([&] { B.axis(2); }),
            "axis 2 is out of range for tensor 'B' with 2 dimensions");
  EXPECT_EQ(UserErrorOf([&] {
              placeholder({4, 0}, DataType::Float(32), "Z");
            }),
            "placeholder 'Z': dimension 1 is 0 (must be positive)");
  IterVar k = reduce_axis(6, "k");
  EXPECT_EQ(UserErrorOf([&] {
              compute(
                  {4}, [&](Var i) { return sum(A(i, k), {k}) + 1.0f; }, "R");
            }),
            "compute 'R': a reduction must be the whole body (e.g. sum(...)), not part of it");
  EXPECT_EQ(UserErrorOf([&] {
              compute(
                  {4}, [&](Var i, Var j) { return A(i, j); }, "T");
            }),
            "compute 'T': a 2-argument function for a 1-D shape");
  EXPECT_EQ(UserErrorOf([&] { sum(A(0, 0), {B.axis(0)}); }),
            "sum: axis 'B.i' is not a reduction axis (make it with reduce_axis)");
}

}  // namespace
}  // namespace te
}  // namespace tessera
