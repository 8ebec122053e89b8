/// \file
/// How far a benchmarked kernel's output may be from the reference: exact where the inputs make
/// the answer exactly representable, else a bound derived from float32 rounding.
#ifndef TESSERA_BENCH_EXACT_CHECK_H_
#define TESSERA_BENCH_EXACT_CHECK_H_

#include <cstdint>

namespace tessera {
namespace bench {

/// The largest error a float32 dot product of `k` terms may have, in any order of summation,
/// when every term is a multiple of `quantum` of magnitude at most `bound`: 0 when every partial
/// sum is a float32 integer multiple of `quantum` (k * bound / quantum < 2^24), so the answer is
/// exact; else k additions each rounding by at most half an ulp of k * bound.
double DotProductTolerance(int64_t k, double bound, double quantum);

/// The largest |a[i] - b[i]| over `n` floats.
double MaxAbsDifference(const float* a, const float* b, int64_t n);

}  // namespace bench
}  // namespace tessera

#endif  // TESSERA_BENCH_EXACT_CHECK_H_
