/// \file
/// A stand-in for a dense template in tuner tests: a real configuration space and a deterministic
/// cost with the structure of a blocked matmul (preferred vector and register tiles, a cache
/// footprint, an unroll sweet spot, a little seeded noise), so searches and models can be tested
/// in milliseconds without compiling anything.
#ifndef TESSERA_TESTS_TUNER_TESTING_SYNTHETIC_DENSE_H_
#define TESSERA_TESTS_TUNER_TESTING_SYNTHETIC_DENSE_H_

#include <cstdint>
#include <string>

#include "compiler/space/config_space.h"
#include "proto/tuning.pb.h"

namespace tessera {
namespace testing {

/// One dense workload (M×K times K×N).
struct SyntheticDense {
  int64_t m = 256, n = 256, k = 256;

  /// `dense.x86(M,N,K,float32)`.
  std::string WorkloadKey() const;
  /// tile_y, tile_x (3-way factor splits), tile_k (2-way), unroll (0/4/16).
  space::ConfigSpace Space() const;
  /// Seconds per run of `config`; +infinity for the configs this "template" cannot build.
  double Cost(const space::ConfigEntity& config) const;
  /// A tuning record of `config` as the tuner would write it.
  tuning::MeasureRecord Record(const space::ConfigEntity& config, const std::string& target) const;
};

}  // namespace testing
}  // namespace tessera

#endif  // TESSERA_TESTS_TUNER_TESTING_SYNTHETIC_DENSE_H_
