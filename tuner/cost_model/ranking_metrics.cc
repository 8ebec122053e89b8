#include "tuner/cost_model/ranking_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>

#include "compiler/support/error.h"

namespace tessera {
namespace tuner {

double PairwiseRankingAccuracy(const std::vector<double>& scores,
                               const std::vector<double>& costs) {
  TESSERA_USER_CHECK(scores.size() == costs.size())
      << "ranking accuracy: " << scores.size() << " scores for " << costs.size() << " costs";
  double correct = 0;
  double pairs = 0;
  for (size_t i = 0; i < costs.size(); ++i) {
    for (size_t j = i + 1; j < costs.size(); ++j) {
      if (costs[i] == costs[j]) continue;
      pairs += 1;
      if (scores[i] == scores[j]) {
        correct += 0.5;
      } else if ((scores[i] > scores[j]) == (costs[i] < costs[j])) {
        correct += 1;
      }
    }
  }
  return pairs == 0 ? 1.0 : correct / pairs;
}

double RecallAtK(const std::vector<double>& scores, const std::vector<double>& costs, int k) {
  TESSERA_USER_CHECK(scores.size() == costs.size())
      << "recall@k: " << scores.size() << " scores for " << costs.size() << " costs";
  TESSERA_USER_CHECK(k >= 1 && static_cast<size_t>(k) <= costs.size())
      << "recall@k: k = " << k << " is not in [1, " << costs.size() << "]";
  std::vector<size_t> by_score(scores.size()), by_cost(costs.size());
  std::iota(by_score.begin(), by_score.end(), 0);
  std::iota(by_cost.begin(), by_cost.end(), 0);
  std::stable_sort(by_score.begin(), by_score.end(),
                   [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  std::stable_sort(by_cost.begin(), by_cost.end(),
                   [&](size_t a, size_t b) { return costs[a] < costs[b]; });
  std::set<size_t> best(by_cost.begin(), by_cost.begin() + k);
  int hits = 0;
  for (int i = 0; i < k; ++i) hits += best.count(by_score[i]) ? 1 : 0;
  return static_cast<double>(hits) / k;
}

int64_t TrialsToFraction(const std::vector<double>& scores, const std::vector<double>& costs,
                         double fraction) {
  TESSERA_USER_CHECK(scores.size() == costs.size())
      << "trials to target: " << scores.size() << " scores for " << costs.size() << " costs";
  TESSERA_USER_CHECK(fraction > 0 && fraction <= 1)
      << "trials to target: fraction " << fraction << " is not in (0, 1]";
  double best = std::numeric_limits<double>::infinity();
  for (double c : costs) {
    if (std::isfinite(c) && c > 0) best = std::min(best, c);
  }
  if (!std::isfinite(best)) return -1;
  std::vector<size_t> by_score(scores.size());
  std::iota(by_score.begin(), by_score.end(), 0);
  std::stable_sort(by_score.begin(), by_score.end(),
                   [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  for (size_t i = 0; i < by_score.size(); ++i) {
    double c = costs[by_score[i]];
    if (std::isfinite(c) && c > 0 && c <= best / fraction) return static_cast<int64_t>(i + 1);
  }
  return -1;  // unreachable: the best itself qualifies
}

}  // namespace tuner
}  // namespace tessera
