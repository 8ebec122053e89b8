/// \file
/// Genetic search: a population of configurations evolves by roulette selection on measured
/// throughput, single-point crossover of knob choices and per-knob mutation; the best few survive.
#ifndef TESSERA_TUNER_SEARCH_GENETIC_TUNER_H_
#define TESSERA_TUNER_SEARCH_GENETIC_TUNER_H_

#include <deque>
#include <vector>

#include "tuner/search/tuner.h"

namespace tessera {
namespace tuner {

/// Parameters of the genetic search.
struct GeneticOptions {
  int population = 64;
  int elites = 3;                     ///< best configurations kept as parents of every generation
  double mutation_probability = 0.1;  ///< per knob
};

/// A genetic algorithm over knob choices; no cost model.
class GeneticTuner : public Tuner {
 public:
  /// A genetic search over `space`; throws `UserError` on bad options.
  GeneticTuner(space::ConfigSpace space, uint64_t seed, GeneticOptions options = {});

 protected:
  std::vector<space::ConfigEntity> NextBatch(int count) override;
  void Update(const std::vector<Trial>& trials) override;

 private:
  struct Scored {
    space::ConfigEntity config;
    double fitness;
  };
  void Breed();
  int64_t RandomFreshIndex();

  GeneticOptions options_;
  std::deque<space::ConfigEntity> queue_;  // the current generation, not yet handed out
  std::vector<Scored> generation_;         // measured members of the current generation
  std::vector<Scored> elites_;
};

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_SEARCH_GENETIC_TUNER_H_
