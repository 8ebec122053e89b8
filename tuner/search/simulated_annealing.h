/// \file
/// Simulated annealing over a configuration space on predicted scores: finds the configurations a
/// cost model likes best without measuring anything.
#ifndef TESSERA_TUNER_SEARCH_SIMULATED_ANNEALING_H_
#define TESSERA_TUNER_SEARCH_SIMULATED_ANNEALING_H_

#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "compiler/space/config_space.h"

namespace tessera {
namespace tuner {

/// Parameters of the annealing.
struct AnnealingOptions {
  int iterations = 500;            ///< steps of every chain at most
  int chains = 128;                ///< parallel chains (capped by the space size)
  int early_stop = 50;             ///< stop after this many steps without a new top point
  double start_temperature = 1.0;  ///< cools linearly to 0
  bool persistent = true;          ///< later calls continue from the chains' last points
};

/// Scores a batch of configurations; higher is better.
using ScoreFn = std::function<std::vector<double>(const std::vector<space::ConfigEntity>&)>;

/// Parallel chains of random walks that accept a worse neighbour with a probability that shrinks
/// as the temperature falls.
class SimulatedAnnealing {
 public:
  /// An optimizer with these options.
  explicit SimulatedAnnealing(AnnealingOptions options = {}) : options_(options) {}

  /// The (up to) `count` best-scoring configurations met, best first, skipping any for which
  /// `excluded` is true.
  std::vector<space::ConfigEntity> FindMaximums(const space::ConfigSpace& space,
                                                const ScoreFn& score, int count,
                                                const std::function<bool(int64_t)>& excluded,
                                                std::mt19937_64& rng);

 private:
  AnnealingOptions options_;
  std::vector<int64_t> chains_;  // last points of the previous call, when persistent
};

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_SEARCH_SIMULATED_ANNEALING_H_
