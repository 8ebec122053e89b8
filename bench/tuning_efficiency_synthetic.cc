// The search and the cost model on the synthetic dense template of the tuner's tests (a smooth,
// shape-aware cost over the real dense.x86-like space; nothing is compiled): trials for random,
// xgb and xgb with transfer from three other shapes to get within 5% of the true optimum, and
// the model's pairwise ranking accuracy on held-out configs. Deterministic for a seed.
//
//   bazel run //bench:tuning_efficiency_synthetic -- [--seeds 5] [--max-trials 1000] [--json]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <random>
#include <string>

#include "common/command_line.h"
#include "common/json.h"
#include "compiler/space/mutation.h"
#include "tests/tuner/testing/measure.h"
#include "tests/tuner/testing/synthetic_models.h"
#include "tuner/cost_model/knob_features.h"
#include "tuner/cost_model/ranking_metrics.h"
#include "tuner/cost_model/transfer.h"
#include "tuner/cost_model/xgboost_cost_model.h"
#include "tuner/search/model_based_tuner.h"
#include "tuner/search/random_tuner.h"

namespace {

using namespace tessera;
using namespace tessera::tuner;

int Run(int seeds, int64_t max_trials, bool json) {
  testing::SyntheticDense dense{1024, 1024, 1024};
  double target = testing::OptimalCost(dense) * 1.05;
  tuner::TrainingSet history = testing::HistoryOfOtherShapes();
  auto show = [](int64_t n) { return n == 0 ? std::string("not reached") : std::to_string(n); };
  for (int seed = 1; seed <= seeds; ++seed) {
    RandomTuner random(dense.Space(), seed);
    int64_t r = testing::TrialsToReach(
        random.Tune({max_trials, 64, -1}, testing::SyntheticMeasure(dense)).history, target);
    ModelBasedTuner xgb(dense.Space(), seed, FeaturesOf(dense));
    int64_t x = testing::TrialsToReach(
        xgb.Tune({max_trials, 64, -1}, testing::SyntheticMeasure(dense)).history, target);
    ModelBasedTuner transfer(dense.Space(), seed, FeaturesOf(dense));
    transfer.SetTransferHistory(history);  // as `tessera tune` does
    int64_t t = testing::TrialsToReach(
        transfer.Tune({max_trials, 64, -1}, testing::SyntheticMeasure(dense)).history, target);
    if (json) {
      PrintJsonLine({{"benchmark", "tuning_efficiency_synthetic"},
                     {"seed", seed},
                     {"space", dense.Space().size()},
                     {"random", r},
                     {"xgb", x},
                     {"xgb_transfer", t}},
                    std::cout);
    } else {
      std::printf(
          "seed %d: trials to within 5%% of the optimum: random %s, xgb %s, xgb+transfer "
          "%s (max %lld)\n",
          seed, show(r).c_str(), show(x).c_str(), show(t).c_str(),
          static_cast<long long>(max_trials));
    }
  }
  // Ranking accuracy: 256 random configs to train, 200 other random successful ones to score.
  space::ConfigSpace s = dense.Space();
  std::mt19937_64 rng(1);
  FeatureMatrix train, test;
  std::vector<double> train_costs, test_costs;
  while (train.rows() < 256) {
    auto c = space::RandomConfig(s, rng);
    train.AddRow(CandidateFeatures(c, dense.WorkloadKey()));
    train_costs.push_back(dense.Cost(c));
  }
  while (test.rows() < 200) {
    auto c = space::RandomConfig(s, rng);
    if (!std::isfinite(dense.Cost(c))) continue;
    test.AddRow(CandidateFeatures(c, dense.WorkloadKey()));
    test_costs.push_back(dense.Cost(c));
  }
  XGBoostCostModel model;
  model.Fit(train, train_costs);
  double accuracy = PairwiseRankingAccuracy(model.Predict(test), test_costs);
  if (json) {
    PrintJsonLine(
        {{"benchmark", "tuning_efficiency_synthetic"}, {"ranking_accuracy", Round(accuracy, 3)}},
        std::cout);
  } else {
    std::printf("pairwise ranking accuracy (256 train, 200 held out): %.3f\n", accuracy);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int seeds = 5;
  int64_t max_trials = 1000;
  bool json = false;
  CLI::App app{"The searches and the cost model on the tests' synthetic dense template.",
               "tuning_efficiency_synthetic"};
  app.option_defaults()->always_capture_default();
  app.add_option("--seeds", seeds, "seeds of each search")->check(tessera::Positive());
  app.add_option("--max-trials", max_trials, "trials each search may take")
      ->check(tessera::Positive());
  app.add_flag("--json", json, "JSON lines");
  return tessera::RunCommandLine(app, argc, argv, std::cout, std::cerr,
                                 [&] { return Run(seeds, max_trials, json); });
}
