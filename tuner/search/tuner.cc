#include "tuner/search/tuner.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "compiler/support/error.h"

namespace tessera {
namespace tuner {
namespace {

// Rejection sampling stays cheap until the space is nearly exhausted; then enumerate.
constexpr int kRandomTries = 64;

bool Better(const MeasureOutcome& a, const std::optional<Trial>& best) {
  return a.ok() && (!best || a.cost < best->outcome.cost);
}

}  // namespace

bool MeasureOutcome::ok() const { return error == tuning::OK && std::isfinite(cost); }

Tuner::Tuner(space::ConfigSpace space, uint64_t seed) : space_(std::move(space)), rng_(seed) {}

Tuner::~Tuner() = default;

int64_t Tuner::unvisited() const { return space_.size() - static_cast<int64_t>(visited_.size()); }

space::ConfigEntity Tuner::ClaimRandom() {
  TESSERA_INTERNAL_CHECK(unvisited() > 0) << "no unvisited configuration left";
  std::uniform_int_distribution<int64_t> draw(0, space_.size() - 1);
  for (int i = 0; i < kRandomTries; ++i) {
    int64_t index = draw(rng_);
    if (Claim(index)) return space_.Get(index);
  }
  std::vector<int64_t> rest;
  for (int64_t i = 0; i < space_.size(); ++i) {
    if (!IsVisited(i)) rest.push_back(i);
  }
  int64_t index = rest[std::uniform_int_distribution<size_t>(0, rest.size() - 1)(rng_)];
  Claim(index);
  return space_.Get(index);
}

void Tuner::LoadHistory(const std::vector<Trial>& trials) {
  std::vector<Trial> fresh;
  for (const Trial& trial : trials) {
    if (!Claim(trial.config.index())) continue;  // the log may hold repeats of one config
    if (Better(trial.outcome, best_)) best_ = trial;
    fresh.push_back(trial);
  }
  if (!fresh.empty()) Update(fresh);
}

TuneResult Tuner::Tune(const TuneOptions& options, const MeasureBatchFn& measure,
                       const ProgressFn& progress) {
  TESSERA_USER_CHECK(options.trials >= 0)
      << "tune: the number of trials must not be negative, got " << options.trials;
  TESSERA_USER_CHECK(options.batch_size >= 1)
      << "tune: the batch size must be at least 1, got " << options.batch_size;
  TESSERA_USER_CHECK(options.early_stopping == -1 || options.early_stopping >= 1)
      << "tune: early stopping must be -1 (off) or at least 1, got " << options.early_stopping;
  TuneResult result;
  int64_t last_improvement = 0;
  while (result.trials < options.trials) {
    if (unvisited() == 0) {
      result.space_exhausted = true;
      break;
    }
    if (options.early_stopping > 0 && result.trials - last_improvement >= options.early_stopping) {
      result.stopped_early = true;
      break;
    }
    int64_t want = std::min<int64_t>(options.batch_size, options.trials - result.trials);
    std::vector<space::ConfigEntity> batch = BatchWithFirsts(static_cast<int>(want));
    std::unordered_set<int64_t> in_batch;
    for (const auto& config : batch) {
      TESSERA_INTERNAL_CHECK(IsVisited(config.index()) && in_batch.insert(config.index()).second)
          << "search proposed config " << config.index() << " without claiming it, or twice";
    }
    TESSERA_INTERNAL_CHECK(!batch.empty() && static_cast<int64_t>(batch.size()) <= want)
        << "search proposed " << batch.size() << " configs for a batch of " << want;
    std::vector<MeasureOutcome> outcomes = measure(batch);
    TESSERA_USER_CHECK(outcomes.size() == batch.size())
        << "tune: the measure function returned " << outcomes.size() << " outcomes for "
        << batch.size() << " candidates";
    std::vector<Trial> trials;
    for (size_t i = 0; i < batch.size(); ++i) {
      trials.push_back({batch[i], outcomes[i]});
      ++result.trials;
      if (!outcomes[i].ok()) ++result.failures;
      if (Better(outcomes[i], best_)) {
        best_ = trials.back();
        result.best_trial = result.trials;
        last_improvement = result.trials;
      }
    }
    result.history.insert(result.history.end(), trials.begin(), trials.end());
    Update(trials);
    if (progress) {
      TuneProgress p;
      p.trials = result.trials;
      p.failures = result.failures;
      p.best_cost = best_ ? best_->outcome.cost : p.best_cost;
      p.planned = std::min(options.trials, result.trials + unvisited());
      if (options.early_stopping > 0) {
        p.planned = std::min(p.planned, last_improvement + options.early_stopping);
      }
      progress(p, trials);
    }
  }
  result.best = best_;
  return result;
}

void Tuner::MeasureFirst(const std::vector<space::ConfigEntity>& configs) {
  firsts_.insert(firsts_.end(), configs.begin(), configs.end());
}

std::vector<space::ConfigEntity> Tuner::BatchWithFirsts(int count) {
  std::vector<space::ConfigEntity> batch;
  while (!firsts_.empty() && static_cast<int>(batch.size()) < count) {
    space::ConfigEntity config = firsts_.front();
    firsts_.erase(firsts_.begin());
    if (Claim(config.index())) batch.push_back(config);
  }
  int rest = count - static_cast<int>(batch.size());
  if (rest > 0 && unvisited() > 0) {
    std::vector<space::ConfigEntity> proposed = NextBatch(rest);
    batch.insert(batch.end(), proposed.begin(), proposed.end());
  }
  return batch;
}

}  // namespace tuner
}  // namespace tessera
