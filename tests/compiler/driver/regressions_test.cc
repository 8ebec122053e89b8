// Bugs that a random check of the compiler found (each case failed before its fix), run on both
// CPU backends with every array against a guard page: an rfactor of a conditional reduction that
// read past its input, compute_at of a producer read through loaded indices, and thread bindings
// on CPU targets.
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/tessera.h"
#include "tests/compiler/testing/reference_check.h"
#include "tests/compiler/testing/user_error.h"

namespace tessera {
namespace {

std::vector<std::pair<std::string, testing::Backend>> Backends() {
  return {{"c", [](const ir::PrimFunc& f) { return build({f}, Target("c")); }},
          {"llvm", [](const ir::PrimFunc& f) { return build({f}, Target("llvm")); }}};
}

using testing::UserErrorOf;

// out[i] = sum_k A[i,k] where A[i,k] > 0, k split by 3 (8 = 3 + 3 + 2), rfactor on k.inner: the
// padding iteration k = 8 must not evaluate the condition, which would read A[16], the first
// byte of the guard page (A is exactly 64 bytes).
TEST(RegressionsTest, RfactorOfConditionalReductionStaysInBounds) {
  for (const auto& [backend_name, backend] : Backends()) {
    for (bool inner : {true, false}) {
      te::Tensor A = te::placeholder({2, 8}, DataType::Float(32), "A");
      te::IterVar k = te::reduce_axis(8, "k");
      te::Tensor out = te::compute(
          {2}, [&](Var i) { return te::sum(A(i, k), {k}, A(i, k) > 0.0f); }, "out");
      te::Schedule s = te::create_schedule({out});
      auto [ko, ki] = s[out].split(k, 3);
      s.rfactor(out, inner ? ki : ko);
      testing::CheckOptions options;
      options.backend = backend;
      for (uint64_t seed : {0, 1}) {  // guard after the end, then before the start
        EXPECT_EQ(testing::CheckAgainstReference(s, {A, out}, "cond_rfactor", seed, options), "")
            << backend_name << (inner ? " k.inner" : " k.outer") << " seed " << seed;
      }
    }
  }
}

// P = 2*A; out[i,j] = P[idx[i], j] with P computed at out.i: the region of P that out's row
// needs depends on data, so P's whole first axis is computed there.
TEST(RegressionsTest, ComputeAtOfProducerReadThroughLoadedIndex) {
  for (const auto& [backend_name, backend] : Backends()) {
    te::Tensor A = te::placeholder({6, 4}, DataType::Float(32), "A");
    te::Tensor idx = te::placeholder({5}, DataType::Int(32), "idx");
    te::Tensor P = te::compute(
        {6, 4}, [&](Var i, Var j) { return A(i, j) * 2.0f; }, "P");
    te::Tensor out = te::compute(
        {5, 4}, [&](Var i, Var j) { return P(idx(i), j); }, "out");
    te::Schedule s = te::create_schedule({out});
    s[P].compute_at(s[out], out.axis(0));
    testing::CheckOptions options;
    options.backend = backend;
    options.fill = [](size_t arg, std::vector<double>* values) {
      if (arg != 1) return;
      for (size_t i = 0; i < values->size(); ++i) (*values)[i] = static_cast<double>((i * 5) % 6);
    };
    EXPECT_EQ(testing::CheckAgainstReference(s, {A, idx, out}, "gather", 0, options), "")
        << backend_name;
  }
}

TEST(RegressionsTest, ThreadBindingsAreRefusedOnEveryCpuTarget) {
  te::Tensor A = te::placeholder({8}, DataType::Float(32), "A");
  te::Tensor B = te::compute(
      {8}, [&](Var i) { return A(i) + 1.0f; }, "B");
  te::Schedule s = te::create_schedule({B});
  s[B].bind(B.axis(0), "threadIdx.x");
  for (const char* target : {"c", "llvm", "llvm -mtriple=aarch64-linux-gnu"}) {
    EXPECT_EQ(UserErrorOf([&] {
                build(s, {A, B}, Target(target), "f");
              }),
              std::string("build of 'f': loop 'B.i' is bound to threadIdx.x, but target '") +
                  Target(target).str() +
                  "' is not a GPU target (thread bindings need a GPU target)");
  }
}

TEST(RegressionsTest, BindingAReductionAxisIsRefusedAtTheCall) {
  te::Tensor A = te::placeholder({8, 8}, DataType::Float(32), "A");
  te::IterVar k = te::reduce_axis(8, "k");
  te::Tensor B = te::compute(
      {8}, [&](Var i) { return te::sum(A(i, k), {k}); }, "B");
  te::Schedule s = te::create_schedule({B});
  EXPECT_EQ(
      UserErrorOf([&] { s[B].bind(k, "threadIdx.x"); }),
      "bind on stage 'B': axis 'k' is a reduction axis (its iterations depend on each other)");
}

TEST(RegressionsTest, SharedScopeIsRefusedOnCpuTargets) {
  te::Tensor A = te::placeholder({8}, DataType::Float(32), "A");
  te::Tensor B = te::compute(
      {8}, [&](Var i) { return A(i) + 1.0f; }, "B");
  te::Schedule s = te::create_schedule({B});
  s.cache_read(A, "shared", {B});
  EXPECT_EQ(UserErrorOf([&] {
              build(s, {A, B}, Target("llvm"), "f");
            }),
            "build of 'f': stage 'A.shared' is in storage scope 'shared', but target 'llvm' is not "
            "a GPU target (use 'local' or 'global' on CPUs)");
}

}  // namespace
}  // namespace tessera
