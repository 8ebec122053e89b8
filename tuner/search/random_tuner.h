/// \file
/// Random search: uniformly random configurations, each measured at most once.
#ifndef TESSERA_TUNER_SEARCH_RANDOM_TUNER_H_
#define TESSERA_TUNER_SEARCH_RANDOM_TUNER_H_

#include "tuner/search/tuner.h"

namespace tessera {
namespace tuner {

/// Samples the space uniformly without replacement.
class RandomTuner : public Tuner {
 public:
  /// A random search over `space` seeded with `seed`.
  RandomTuner(space::ConfigSpace space, uint64_t seed) : Tuner(std::move(space), seed) {}

 protected:
  std::vector<space::ConfigEntity> NextBatch(int count) override;
};

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_SEARCH_RANDOM_TUNER_H_
