#include "tuner/tune/trial_shares.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/error.h"

namespace tessera {
namespace tuner {

std::vector<int64_t> TrialShares(const std::vector<ModelTask>& tasks, int64_t trials) {
  const int64_t n = static_cast<int64_t>(tasks.size());
  TESSERA_USER_CHECK(n > 0) << "no task to share trials between";
  TESSERA_USER_CHECK(trials >= n) << trials << " trials cannot be shared between " << n
                                  << " tasks: give at least one per task";
  const int64_t floor_share = std::max<int64_t>(trials / (2 * n), 1);
  std::vector<int64_t> shares(tasks.size(), floor_share);
  const int64_t rest = trials - floor_share * n;
  std::vector<double> weights;
  for (const ModelTask& task : tasks) {
    weights.push_back(std::max(task.weight * std::max(task.flops, 1.0), 1e-9));
  }
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  std::vector<std::pair<double, size_t>> remainders;
  int64_t given = 0;
  for (size_t i = 0; i < tasks.size(); ++i) {
    double exact = static_cast<double>(rest) * weights[i] / total;
    int64_t whole = static_cast<int64_t>(std::floor(exact));
    shares[i] += whole;
    given += whole;
    remainders.push_back({exact - static_cast<double>(whole), i});
  }
  std::sort(remainders.begin(), remainders.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  for (int64_t i = 0; given < rest; ++i, ++given) ++shares[remainders[i % n].second];
  return shares;
}

}  // namespace tuner
}  // namespace tessera
