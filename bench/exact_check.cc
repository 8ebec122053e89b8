#include "bench/exact_check.h"

#include <algorithm>
#include <cmath>

namespace tessera {
namespace bench {

double DotProductTolerance(int64_t k, double bound, double quantum) {
  const double largest = static_cast<double>(k) * bound;
  if (largest / quantum < 16777216.0) return 0;  // 2^24: every partial sum is exact
  return static_cast<double>(k) * 0.5 * std::ldexp(1.0, std::ilogb(largest) - 23);
}

double MaxAbsDifference(const float* a, const float* b, int64_t n) {
  double worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    worst = std::max(worst, std::fabs(static_cast<double>(a[i]) - static_cast<double>(b[i])));
  }
  return worst;
}

}  // namespace bench
}  // namespace tessera
