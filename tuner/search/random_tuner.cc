#include "tuner/search/random_tuner.h"

namespace tessera {
namespace tuner {

std::vector<space::ConfigEntity> RandomTuner::NextBatch(int count) {
  std::vector<space::ConfigEntity> batch;
  while (static_cast<int>(batch.size()) < count && unvisited() > 0) batch.push_back(ClaimRandom());
  return batch;
}

}  // namespace tuner
}  // namespace tessera
