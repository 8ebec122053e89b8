/// \file
/// The common tuning loop: ask a search strategy for a batch of unmeasured configurations,
/// measure them, tell the strategy the results, keep the best, stop early when nothing improves.
#ifndef TESSERA_TUNER_SEARCH_TUNER_H_
#define TESSERA_TUNER_SEARCH_TUNER_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "compiler/space/config_space.h"
#include "proto/tuning.pb.h"

namespace tessera {
namespace tuner {

/// The result of measuring one candidate.
struct MeasureOutcome {
  double cost = std::numeric_limits<double>::infinity();  ///< mean seconds; +infinity on error
  tuning::ErrorKind error = tuning::OK;
  std::string message;        ///< why it failed, when it did
  std::vector<double> costs;  ///< seconds of each repeat (empty on error)
  double all_cost = 0;        ///< seconds spent building and running the candidate
  /// True when the candidate ran and has a finite cost.
  bool ok() const;
};

/// One measured candidate.
struct Trial {
  space::ConfigEntity config;
  MeasureOutcome outcome;
};

/// Measures a batch of candidates; returns one outcome per candidate, in order.
using MeasureBatchFn =
    std::function<std::vector<MeasureOutcome>(const std::vector<space::ConfigEntity>&)>;

/// Options of `Tuner::Tune`.
struct TuneOptions {
  int64_t trials = 0;           ///< at most this many new measurements
  int batch_size = 16;          ///< candidates per call of the measure function
  int64_t early_stopping = -1;  ///< stop after this many trials without a new best; -1: never
};

/// Progress after each batch, for progress bars.
struct TuneProgress {
  int64_t trials = 0;                                          ///< measured in this run so far
  int64_t failures = 0;                                        ///< of which failed
  double best_cost = std::numeric_limits<double>::infinity();  ///< best so far, history included
  int64_t planned = 0;  ///< trials this run will make at most (space and early stopping included)
};

/// What a tuning run did.
struct TuneResult {
  std::optional<Trial> best;  ///< the fastest successful trial, loaded history included
  int64_t trials = 0;         ///< new measurements in this run
  int64_t failures = 0;       ///< of which failed
  int64_t best_trial = 0;     ///< 1-based trial of this run that found `best`; 0: from history
  bool stopped_early = false;
  bool space_exhausted = false;  ///< every configuration has been measured
  std::vector<Trial> history;    ///< this run's trials, in measurement order
};

/// Called after each measured batch.
using ProgressFn = std::function<void(const TuneProgress&, const std::vector<Trial>&)>;

/// A search strategy over one space. Subclasses propose unmeasured configurations; the base class
/// runs the loop, remembers what has been measured and never measures a configuration twice.
class Tuner {
 public:
  /// A tuner over `space`; all randomness derives from `seed`.
  Tuner(space::ConfigSpace space, uint64_t seed);
  virtual ~Tuner();

  /// Resumes from earlier measurements (e.g. the tuning log): they are never proposed again, they
  /// count for the best, and the strategy learns from them.
  void LoadHistory(const std::vector<Trial>& trials);

  /// Measures `configs` first, before the strategy's own proposals (those already measured are
  /// skipped): e.g. the template's fallback, so a tuned record is never slower than the default.
  void MeasureFirst(const std::vector<space::ConfigEntity>& configs);

  /// Runs up to `options.trials` new measurements through `measure`. Throws `UserError` on bad
  /// options or when `measure` returns the wrong number of outcomes.
  TuneResult Tune(const TuneOptions& options, const MeasureBatchFn& measure,
                  const ProgressFn& progress = nullptr);

  /// Configurations not measured yet.
  int64_t unvisited() const;
  /// The space searched.
  const space::ConfigSpace& config_space() const { return space_; }

 protected:
  /// Up to `count` distinct unmeasured configurations (fewer only when the space runs out).
  virtual std::vector<space::ConfigEntity> NextBatch(int count) = 0;
  /// Learns from measured trials (new ones, or history).
  virtual void Update(const std::vector<Trial>& trials) {}

  /// True when `index` has been measured or handed out.
  bool IsVisited(int64_t index) const { return visited_.count(index) > 0; }
  /// Hands `index` out for measurement: false when it already was (or was measured). Every
  /// configuration `NextBatch` returns must have been claimed by it.
  bool Claim(int64_t index) { return visited_.insert(index).second; }
  /// Claims and returns a uniformly random unvisited configuration; the space must have one.
  space::ConfigEntity ClaimRandom();
  /// The indices measured so far.
  const std::unordered_set<int64_t>& visited() const { return visited_; }

  space::ConfigSpace space_;
  std::mt19937_64 rng_;

 private:
  std::vector<space::ConfigEntity> BatchWithFirsts(int count);

  std::unordered_set<int64_t> visited_;
  std::vector<space::ConfigEntity> firsts_;
  std::optional<Trial> best_;
};

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_SEARCH_TUNER_H_
