#include "tuner/search/simulated_annealing.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_set>

#include "compiler/space/mutation.h"
#include "compiler/support/error.h"

namespace tessera {
namespace tuner {
namespace {

// The best `capacity` distinct points seen, by score.
class TopPoints {
 public:
  explicit TopPoints(size_t capacity) : capacity_(capacity) {}

  // True when the set changed.
  bool Offer(int64_t index, double score) {
    if (members_.count(index)) return false;
    if (ranked_.size() >= capacity_) {
      if (score <= ranked_.begin()->first) return false;
      members_.erase(ranked_.begin()->second);
      ranked_.erase(ranked_.begin());
    }
    ranked_.insert({score, index});
    members_.insert(index);
    return true;
  }

  std::vector<int64_t> BestFirst() const {
    std::vector<int64_t> out;
    for (auto it = ranked_.rbegin(); it != ranked_.rend(); ++it) out.push_back(it->second);
    return out;
  }

 private:
  size_t capacity_;
  std::set<std::pair<double, int64_t>> ranked_;
  std::unordered_set<int64_t> members_;
};

}  // namespace

std::vector<space::ConfigEntity> SimulatedAnnealing::FindMaximums(
    const space::ConfigSpace& space, const ScoreFn& score, int count,
    const std::function<bool(int64_t)>& excluded, std::mt19937_64& rng) {
  TESSERA_INTERNAL_CHECK(count > 0) << "count " << count;
  int64_t num_chains = std::min<int64_t>(options_.chains, space.size());
  std::vector<space::ConfigEntity> points;
  if (options_.persistent && static_cast<int64_t>(chains_.size()) == num_chains) {
    for (int64_t index : chains_) points.push_back(space.Get(index));
  } else {
    for (int64_t i = 0; i < num_chains; ++i) points.push_back(space::RandomConfig(space, rng));
  }
  std::vector<double> scores = score(points);
  TopPoints top(static_cast<size_t>(count));
  for (size_t i = 0; i < points.size(); ++i) {
    if (!excluded(points[i].index())) top.Offer(points[i].index(), scores[i]);
  }

  std::uniform_real_distribution<double> coin(0.0, 1.0);
  int since_change = 0;
  for (int step = 0; step < options_.iterations && since_change < options_.early_stop; ++step) {
    double temperature =
        options_.start_temperature * (1.0 - static_cast<double>(step) / options_.iterations);
    std::vector<space::ConfigEntity> proposals;
    for (const auto& p : points) proposals.push_back(space::RandomWalk(space, p, rng));
    std::vector<double> proposal_scores = score(proposals);
    bool changed = false;
    for (size_t i = 0; i < points.size(); ++i) {
      if (!excluded(proposals[i].index())) {
        changed |= top.Offer(proposals[i].index(), proposal_scores[i]);
      }
      // Improvements are always taken; a worse step is taken less often as it cools.
      double accept =
          std::exp(std::min((proposal_scores[i] - scores[i]) / (temperature + 1e-5), 1.0));
      if (coin(rng) < accept) {
        points[i] = proposals[i];
        scores[i] = proposal_scores[i];
      }
    }
    since_change = changed ? 0 : since_change + 1;
  }
  chains_.clear();
  for (const auto& p : points) chains_.push_back(p.index());
  std::vector<space::ConfigEntity> out;
  for (int64_t index : top.BestFirst()) out.push_back(space.Get(index));
  return out;
}

}  // namespace tuner
}  // namespace tessera
