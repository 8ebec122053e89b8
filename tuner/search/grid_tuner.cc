#include "tuner/search/grid_tuner.h"

namespace tessera {
namespace tuner {

std::vector<space::ConfigEntity> GridTuner::NextBatch(int count) {
  std::vector<space::ConfigEntity> batch;
  while (static_cast<int>(batch.size()) < count && next_ < space_.size()) {
    int64_t index = next_++;
    if (Claim(index)) batch.push_back(space_.Get(index));
  }
  return batch;
}

}  // namespace tuner
}  // namespace tessera
