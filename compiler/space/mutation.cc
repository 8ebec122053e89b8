#include "compiler/space/mutation.h"

namespace tessera {
namespace space {
namespace {

int64_t Draw(int64_t count, std::mt19937_64& rng) {
  return std::uniform_int_distribution<int64_t>(0, count - 1)(rng);
}

int64_t ChoiceCount(const ConfigSpace& space, size_t knob) {
  return static_cast<int64_t>(space.knobs()[knob].choices.size());
}

}  // namespace

ConfigEntity RandomConfig(const ConfigSpace& space, std::mt19937_64& rng) {
  return space.Get(Draw(space.size(), rng));
}

ConfigEntity RandomWalk(const ConfigSpace& space, const ConfigEntity& config,
                        std::mt19937_64& rng) {
  std::vector<size_t> movable;
  for (size_t i = 0; i < space.knobs().size(); ++i) {
    if (ChoiceCount(space, i) > 1) movable.push_back(i);
  }
  if (movable.empty()) return config;
  size_t knob = movable[Draw(static_cast<int64_t>(movable.size()), rng)];
  std::vector<int64_t> choices = config.choices();
  // Draw among the other choices so that the walk always moves.
  int64_t next = Draw(ChoiceCount(space, knob) - 1, rng);
  choices[knob] = next >= choices[knob] ? next + 1 : next;
  return space.FromChoices(choices);
}

std::vector<ConfigEntity> Neighbours(const ConfigSpace& space, const ConfigEntity& config) {
  std::vector<ConfigEntity> out;
  for (size_t i = 0; i < space.knobs().size(); ++i) {
    for (int64_t step : {-1, 1}) {
      std::vector<int64_t> choices = config.choices();
      choices[i] += step;
      if (choices[i] < 0 || choices[i] >= ChoiceCount(space, i)) continue;
      out.push_back(space.FromChoices(choices));
    }
  }
  return out;
}

ConfigEntity Crossover(const ConfigSpace& space, const ConfigEntity& a, const ConfigEntity& b,
                       std::mt19937_64& rng) {
  std::vector<int64_t> choices = a.choices();
  if (choices.empty()) return a;
  size_t cut = static_cast<size_t>(Draw(static_cast<int64_t>(choices.size()) + 1, rng));
  for (size_t i = cut; i < choices.size(); ++i) choices[i] = b.choices()[i];
  return space.FromChoices(choices);
}

ConfigEntity Mutate(const ConfigSpace& space, const ConfigEntity& config, double probability,
                    std::mt19937_64& rng) {
  std::vector<int64_t> choices = config.choices();
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  for (size_t i = 0; i < choices.size(); ++i) {
    if (coin(rng) < probability) choices[i] = Draw(ChoiceCount(space, i), rng);
  }
  return space.FromChoices(choices);
}

}  // namespace space
}  // namespace tessera
