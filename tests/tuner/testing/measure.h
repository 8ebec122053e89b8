/// \file
/// Measuring with the synthetic template: outcomes as a runner would report them.
#ifndef TESSERA_TESTS_TUNER_TESTING_MEASURE_H_
#define TESSERA_TESTS_TUNER_TESTING_MEASURE_H_

#include <cmath>
#include <limits>
#include <vector>

#include "tests/tuner/testing/synthetic_dense.h"
#include "tuner/search/tuner.h"

namespace tessera {
namespace testing {

/// A measure function over `dense` that also counts how often each index was measured.
inline tuner::MeasureBatchFn SyntheticMeasure(const SyntheticDense& dense,
                                              std::vector<int64_t>* measured = nullptr) {
  return [dense, measured](const std::vector<space::ConfigEntity>& batch) {
    std::vector<tuner::MeasureOutcome> out;
    for (const auto& c : batch) {
      if (measured) measured->push_back(c.index());
      tuner::MeasureOutcome o;
      o.cost = dense.Cost(c);
      if (!std::isfinite(o.cost)) {
        o.error = tuning::COMPILE_ERROR;
        o.message = "register tile too large";
      }
      out.push_back(o);
    }
    return out;
  };
}

/// The lowest cost over the whole space of `dense`.
inline double OptimalCost(const SyntheticDense& dense) {
  space::ConfigSpace s = dense.Space();
  double best = std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < s.size(); ++i) best = std::min(best, dense.Cost(s.Get(i)));
  return best;
}

/// The 1-based trial at which `history` first reached `target` seconds or less; 0 if never.
inline int64_t TrialsToReach(const std::vector<tuner::Trial>& history, double target) {
  for (size_t i = 0; i < history.size(); ++i) {
    if (history[i].outcome.ok() && history[i].outcome.cost <= target) return i + 1;
  }
  return 0;
}

}  // namespace testing
}  // namespace tessera

#endif  // TESSERA_TESTS_TUNER_TESTING_MEASURE_H_
