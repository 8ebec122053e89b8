/// \file
/// How well predicted scores order candidates by their measured costs.
#ifndef TESSERA_TUNER_COST_MODEL_RANKING_METRICS_H_
#define TESSERA_TUNER_COST_MODEL_RANKING_METRICS_H_

#include <cstdint>
#include <vector>

namespace tessera {
namespace tuner {

/// Fraction of pairs with different measured costs that the scores order correctly (a higher
/// score must mean a lower cost); tied scores count half. 1 when there is no such pair. Throws
/// `UserError` when the lengths differ.
double PairwiseRankingAccuracy(const std::vector<double>& scores, const std::vector<double>& costs);

/// Of the `k` candidates with the highest scores, the fraction that are among the `k` with the
/// lowest costs. Throws `UserError` when the lengths differ or `k` is not in [1, size].
double RecallAtK(const std::vector<double>& scores, const std::vector<double>& costs, int k);

/// How many candidates a search that measures them in order of decreasing score needs until one
/// reaches `fraction` of the best throughput among them (cost <= best cost / fraction): the
/// trials-to-target of following the scores blindly. Non-finite costs are failed candidates.
/// -1 when no candidate succeeded. Throws `UserError` when the lengths differ or `fraction` is
/// not in (0, 1].
int64_t TrialsToFraction(const std::vector<double>& scores, const std::vector<double>& costs,
                         double fraction);

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_COST_MODEL_RANKING_METRICS_H_
