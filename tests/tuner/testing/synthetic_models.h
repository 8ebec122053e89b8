/// \file
/// Cost-model helpers over the synthetic dense template, shared by the tuner's tests and the
/// synthetic tuning-efficiency benchmark.
#ifndef TESSERA_TESTS_TUNER_TESTING_SYNTHETIC_MODELS_H_
#define TESSERA_TESTS_TUNER_TESTING_SYNTHETIC_MODELS_H_

#include <memory>

#include "tests/tuner/testing/synthetic_dense.h"
#include "tuner/cost_model/transfer.h"
#include "tuner/cost_model/xgboost_cost_model.h"
#include "tuner/search/model_based_tuner.h"

namespace tessera {
namespace testing {

/// Knob and shape features of a candidate of `dense`.
tuner::FeatureFn FeaturesOf(const SyntheticDense& dense);

/// 200 random measurements of each of three other shapes of the synthetic template, one ranking
/// group per shape (for transfer learning).
tuner::TrainingSet HistoryOfOtherShapes();

/// A base model trained on `HistoryOfOtherShapes()`.
std::shared_ptr<tuner::XGBoostCostModel> BaseFromOtherShapes();

}  // namespace testing
}  // namespace tessera

#endif  // TESSERA_TESTS_TUNER_TESTING_SYNTHETIC_MODELS_H_
