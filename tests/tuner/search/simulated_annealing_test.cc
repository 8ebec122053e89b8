#include "tuner/search/simulated_annealing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace tessera {
namespace tuner {
namespace {

space::ConfigSpace GridSpace() {
  space::ConfigSpace s;
  std::vector<int64_t> values;
  for (int64_t v = 0; v < 40; ++v) values.push_back(v);
  s.DefineKnob("x", values);
  s.DefineKnob("y", values);
  return s;
}

// A smooth bowl with its peak at (x, y) = (30, 7).
std::vector<double> Bowl(const std::vector<space::ConfigEntity>& configs) {
  std::vector<double> out;
  for (const auto& c : configs) {
    double dx = static_cast<double>(c.Value("x") - 30), dy = static_cast<double>(c.Value("y") - 7);
    out.push_back(-(dx * dx + dy * dy) / 100.0);
  }
  return out;
}

TEST(SimulatedAnnealingTest, FindsTheTopOfASmoothScoreBestFirst) {
  space::ConfigSpace s = GridSpace();
  std::mt19937_64 rng(1);
  SimulatedAnnealing sa;
  auto top = sa.FindMaximums(
      s, Bowl, 5, [](int64_t) { return false; }, rng);
  ASSERT_EQ(top.size(), 5u);
  EXPECT_EQ(top[0].Value("x"), 30);
  EXPECT_EQ(top[0].Value("y"), 7);
  std::vector<double> scores = Bowl(top);
  for (size_t i = 1; i < scores.size(); ++i) EXPECT_GE(scores[i - 1], scores[i]);
}

TEST(SimulatedAnnealingTest, ExcludedPointsAreNeverReturned) {
  space::ConfigSpace s = GridSpace();
  std::mt19937_64 rng(2);
  SimulatedAnnealing sa;
  int64_t peak = s.FromValues({{"x", {30}}, {"y", {7}}}).index();
  auto top = sa.FindMaximums(
      s, Bowl, 8, [&](int64_t i) { return i == peak; }, rng);
  ASSERT_EQ(top.size(), 8u);
  std::set<int64_t> distinct;
  for (const auto& c : top) {
    EXPECT_NE(c.index(), peak);
    distinct.insert(c.index());
  }
  EXPECT_EQ(distinct.size(), 8u);
}

TEST(SimulatedAnnealingTest, SmallSpacesCapTheChains) {
  space::ConfigSpace s;
  s.DefineKnob("k", {1, 2, 3});
  std::mt19937_64 rng(3);
  SimulatedAnnealing sa;
  size_t widest = 0;
  auto score = [&](const std::vector<space::ConfigEntity>& c) {
    widest = std::max(widest, c.size());
    std::vector<double> out;
    for (const auto& e : c) out.push_back(static_cast<double>(e.Value("k")));
    return out;
  };
  auto top = sa.FindMaximums(
      s, score, 10, [](int64_t) { return false; }, rng);
  EXPECT_EQ(widest, 3u);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].Value("k"), 3);
}

}  // namespace
}  // namespace tuner
}  // namespace tessera
