#include "compiler/space/mutation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

namespace tessera {
namespace space {
namespace {

ConfigSpace MakeSpace() {
  ConfigSpace space;
  space.DefineSplit("tile_x", 64, {SplitPolicy::kFactors, 2, 0});  // 7
  space.DefineKnob("fixed", {3});                                  // 1: never moves
  space.DefineKnob("unroll", {0, 4, 16});                          // 3
  return space;
}

TEST(MutationTest, RandomConfigsAreSeededAndCoverTheSpace) {
  ConfigSpace space = MakeSpace();
  std::mt19937_64 a(7), b(7);
  std::set<int64_t> seen;
  for (int i = 0; i < 500; ++i) {
    ConfigEntity x = RandomConfig(space, a);
    EXPECT_EQ(x.index(), RandomConfig(space, b).index());
    seen.insert(x.index());
  }
  EXPECT_EQ(static_cast<int64_t>(seen.size()), space.size());
}

TEST(MutationTest, RandomWalkChangesExactlyOneMovableKnob) {
  ConfigSpace space = MakeSpace();
  std::mt19937_64 rng(1);
  for (int i = 0; i < 200; ++i) {
    ConfigEntity from = RandomConfig(space, rng);
    ConfigEntity to = RandomWalk(space, from, rng);
    int changed = 0;
    for (size_t k = 0; k < from.choices().size(); ++k)
      changed += from.choices()[k] != to.choices()[k];
    EXPECT_EQ(changed, 1);
    EXPECT_EQ(to.Value("fixed"), 3);
  }
  ConfigSpace single;
  single.DefineKnob("only", {1});
  EXPECT_EQ(RandomWalk(single, single.Get(0), rng).index(), 0);
}

TEST(MutationTest, NeighboursStepOneChoiceInOneKnob) {
  ConfigSpace space = MakeSpace();
  EXPECT_EQ(Neighbours(space, space.FromChoices({0, 0, 0})).size(), 2u);
  auto inner = Neighbours(space, space.FromChoices({3, 0, 1}));
  EXPECT_EQ(inner.size(), 4u);
  std::set<std::vector<int64_t>> got;
  for (const auto& n : inner) got.insert(n.choices());
  EXPECT_EQ(got, (std::set<std::vector<int64_t>>{{2, 0, 1}, {4, 0, 1}, {3, 0, 0}, {3, 0, 2}}));
}

TEST(MutationTest, CrossoverAndMutateStayInTheSpace) {
  ConfigSpace space = MakeSpace();
  std::mt19937_64 rng(3);
  ConfigEntity a = space.FromChoices({0, 0, 0});
  ConfigEntity b = space.FromChoices({6, 0, 2});
  for (int i = 0; i < 100; ++i) {
    ConfigEntity child = Crossover(space, a, b, rng);
    for (size_t k = 0; k < 3; ++k) {
      EXPECT_TRUE(child.choices()[k] == a.choices()[k] || child.choices()[k] == b.choices()[k]);
    }
    ConfigEntity m = Mutate(space, child, 0.5, rng);
    EXPECT_EQ(space.Get(m.index()), m);
  }
  EXPECT_EQ(Mutate(space, b, 0.0, rng), b);
}

}  // namespace
}  // namespace space
}  // namespace tessera
