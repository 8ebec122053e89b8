/// \file
/// Moves through a configuration space: random points, random walks, neighbourhoods, crossover
/// and mutation. All randomness comes from the caller's generator, so searches are reproducible.
#ifndef TESSERA_COMPILER_SPACE_MUTATION_H_
#define TESSERA_COMPILER_SPACE_MUTATION_H_

#include <random>
#include <vector>

#include "compiler/space/config_space.h"

namespace tessera {
namespace space {

/// A uniformly random configuration of `space`.
ConfigEntity RandomConfig(const ConfigSpace& space, std::mt19937_64& rng);

/// `config` with one knob (that has more than one choice) redrawn to a different choice; `config`
/// itself when the space has a single configuration.
ConfigEntity RandomWalk(const ConfigSpace& space, const ConfigEntity& config, std::mt19937_64& rng);

/// Every configuration that differs from `config` by one step (±1 choice) in one knob.
std::vector<ConfigEntity> Neighbours(const ConfigSpace& space, const ConfigEntity& config);

/// A child taking knobs [0, cut) from `a` and the rest from `b`, with a random cut.
ConfigEntity Crossover(const ConfigSpace& space, const ConfigEntity& a, const ConfigEntity& b,
                       std::mt19937_64& rng);

/// `config` with each knob redrawn uniformly with probability `probability`.
ConfigEntity Mutate(const ConfigSpace& space, const ConfigEntity& config, double probability,
                    std::mt19937_64& rng);

}  // namespace space
}  // namespace tessera

#endif  // TESSERA_COMPILER_SPACE_MUTATION_H_
