#include "tests/tuner/testing/synthetic_models.h"

#include <random>
#include <string>

#include "compiler/space/mutation.h"
#include "tuner/cost_model/knob_features.h"
#include "tuner/cost_model/transfer.h"

namespace tessera {
namespace testing {

tuner::FeatureFn FeaturesOf(const SyntheticDense& dense) {
  std::string key = dense.WorkloadKey();
  return [key](const space::ConfigEntity& c) { return tuner::CandidateFeatures(c, key); };
}

tuner::TrainingSet HistoryOfOtherShapes() {
  tuner::TrainingSet history;
  for (auto shape : {SyntheticDense{256, 256, 256}, SyntheticDense{512, 256, 128},
                     SyntheticDense{128, 512, 512}}) {
    space::ConfigSpace s = shape.Space();
    std::mt19937_64 rng(static_cast<uint64_t>(shape.m));
    for (int i = 0; i < 200; ++i) {
      auto c = space::RandomConfig(s, rng);
      history.features.AddRow(tuner::CandidateFeatures(c, shape.WorkloadKey()));
      history.costs.push_back(shape.Cost(c));
    }
    history.group_sizes.push_back(200);
  }
  return history;
}

std::shared_ptr<tuner::XGBoostCostModel> BaseFromOtherShapes() {
  tuner::TrainingSet history = HistoryOfOtherShapes();
  auto base = std::make_shared<tuner::XGBoostCostModel>();
  base->Fit(history.features, history.costs, history.group_sizes);
  return base;
}

}  // namespace testing
}  // namespace tessera
