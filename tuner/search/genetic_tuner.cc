#include "tuner/search/genetic_tuner.h"

#include <algorithm>
#include <unordered_set>

#include "compiler/space/mutation.h"
#include "compiler/support/error.h"

namespace tessera {
namespace tuner {
namespace {

// Attempts per wanted child before topping the generation up with random configurations.
constexpr int kBreedTriesPerChild = 8;

}  // namespace

GeneticTuner::GeneticTuner(space::ConfigSpace space, uint64_t seed, GeneticOptions options)
    : Tuner(std::move(space), seed), options_(options) {
  TESSERA_USER_CHECK(options_.population >= 2)
      << "genetic tuner: population must be at least 2, got " << options_.population;
  TESSERA_USER_CHECK(options_.elites >= 0 && options_.elites < options_.population)
      << "genetic tuner: elites must be in [0, population), got " << options_.elites;
  TESSERA_USER_CHECK(options_.mutation_probability >= 0 && options_.mutation_probability <= 1)
      << "genetic tuner: mutation probability must be in [0, 1], got "
      << options_.mutation_probability;
}

int64_t GeneticTuner::RandomFreshIndex() {
  std::uniform_int_distribution<int64_t> draw(0, space_.size() - 1);
  for (int i = 0; i < 64; ++i) {
    int64_t index = draw(rng_);
    if (!IsVisited(index)) return index;
  }
  for (int64_t i = 0; i < space_.size(); ++i) {
    if (!IsVisited(i)) return i;
  }
  return -1;
}

void GeneticTuner::Update(const std::vector<Trial>& trials) {
  for (const Trial& t : trials) {
    generation_.push_back({t.config, t.outcome.ok() ? 1.0 / t.outcome.cost : 0.0});
  }
}

void GeneticTuner::Breed() {
  std::vector<Scored> pool = elites_;
  pool.insert(pool.end(), generation_.begin(), generation_.end());
  generation_.clear();
  std::stable_sort(pool.begin(), pool.end(),
                   [](const Scored& a, const Scored& b) { return a.fitness > b.fitness; });
  elites_.assign(pool.begin(), pool.begin() + std::min<size_t>(pool.size(), options_.elites));

  double total = 0;
  for (const Scored& s : pool) total += s.fitness;
  std::unordered_set<int64_t> queued;
  auto add = [&](const space::ConfigEntity& c) {
    if (!IsVisited(c.index()) && queued.insert(c.index()).second) queue_.push_back(c);
  };
  if (total > 0) {
    std::uniform_real_distribution<double> spin(0.0, total);
    auto pick = [&]() -> const space::ConfigEntity& {
      double x = spin(rng_);
      for (const Scored& s : pool) {
        x -= s.fitness;
        if (x <= 0) return s.config;
      }
      return pool.front().config;
    };
    for (int tries = 0; static_cast<int>(queue_.size()) < options_.population &&
                        tries < options_.population * kBreedTriesPerChild;
         ++tries) {
      space::ConfigEntity child = space::Crossover(space_, pick(), pick(), rng_);
      add(space::Mutate(space_, child, options_.mutation_probability, rng_));
    }
  }
  // First generation, or a population that no longer produces new children: explore at random.
  while (static_cast<int>(queue_.size()) < options_.population) {
    size_t before = queue_.size();
    int64_t index = RandomFreshIndex();
    if (index < 0) break;
    add(space_.Get(index));
    if (queue_.size() == before) break;  // only queued configurations remain
  }
}

std::vector<space::ConfigEntity> GeneticTuner::NextBatch(int count) {
  std::vector<space::ConfigEntity> batch;
  while (static_cast<int>(batch.size()) < count && unvisited() > 0) {
    if (queue_.empty()) Breed();
    if (queue_.empty()) {
      batch.push_back(ClaimRandom());
      continue;
    }
    space::ConfigEntity next = queue_.front();
    queue_.pop_front();
    if (Claim(next.index())) batch.push_back(next);
  }
  return batch;
}

}  // namespace tuner
}  // namespace tessera
