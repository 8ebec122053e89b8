#include "tuner/search/genetic_tuner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "compiler/support/error.h"
#include "tests/tuner/testing/measure.h"
#include "tuner/search/random_tuner.h"

namespace tessera {
namespace tuner {
namespace {

TEST(GeneticTunerTest, NeverRepeatsAndBeatsRandomOnASmoothCost) {
  testing::SyntheticDense dense{1024, 1024, 1024};
  int wins = 0;
  for (uint64_t seed : {1, 2, 3}) {
    std::vector<int64_t> measured;
    GeneticTuner ga(dense.Space(), seed);
    TuneResult g = ga.Tune({640, 64, -1}, testing::SyntheticMeasure(dense, &measured));
    EXPECT_EQ(g.trials, 640);
    EXPECT_EQ(std::set<int64_t>(measured.begin(), measured.end()).size(), measured.size());
    RandomTuner random(dense.Space(), seed);
    TuneResult r = random.Tune({640, 64, -1}, testing::SyntheticMeasure(dense));
    wins += g.best->outcome.cost < r.best->outcome.cost ? 1 : 0;
  }
  EXPECT_GE(wins, 2);
}

TEST(GeneticTunerTest, ExhaustsATinySpace) {
  space::ConfigSpace s;
  s.DefineKnob("a", {1, 2, 3});
  s.DefineKnob("b", {1, 2});
  GeneticTuner ga(s, 1, {4, 1, 0.5});
  TuneResult r = ga.Tune({100, 4, -1}, [](const std::vector<space::ConfigEntity>& batch) {
    std::vector<MeasureOutcome> out;
    for (const auto& c : batch) {
      MeasureOutcome o;
      o.cost = static_cast<double>(c.Value("a") * c.Value("b"));
      out.push_back(o);
    }
    return out;
  });
  EXPECT_EQ(r.trials, 6);
  EXPECT_TRUE(r.space_exhausted);
  EXPECT_DOUBLE_EQ(r.best->outcome.cost, 1.0);
}

TEST(GeneticTunerTest, BadOptionsAreUserErrors) {
  testing::SyntheticDense dense;
  EXPECT_THROW(GeneticTuner(dense.Space(), 1, {1, 0, 0.1}), UserError);
  EXPECT_THROW(GeneticTuner(dense.Space(), 1, {8, 8, 0.1}), UserError);
  EXPECT_THROW(GeneticTuner(dense.Space(), 1, {8, 2, 1.5}), UserError);
}

}  // namespace
}  // namespace tuner
}  // namespace tessera
