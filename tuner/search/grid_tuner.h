/// \file
/// Grid search: every configuration in index order.
#ifndef TESSERA_TUNER_SEARCH_GRID_TUNER_H_
#define TESSERA_TUNER_SEARCH_GRID_TUNER_H_

#include "tuner/search/tuner.h"

namespace tessera {
namespace tuner {

/// Walks the indices 0, 1, 2, … skipping measured ones.
class GridTuner : public Tuner {
 public:
  /// A grid search over `space`.
  explicit GridTuner(space::ConfigSpace space) : Tuner(std::move(space), 0) {}

 protected:
  std::vector<space::ConfigEntity> NextBatch(int count) override;

 private:
  int64_t next_ = 0;
};

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_SEARCH_GRID_TUNER_H_
