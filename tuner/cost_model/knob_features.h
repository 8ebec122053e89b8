/// \file
/// Features computed from a configuration's knob values alone (no lowering): fast, and usable for
/// records of other shapes of the same template, which have the same knobs.
#ifndef TESSERA_TUNER_COST_MODEL_KNOB_FEATURES_H_
#define TESSERA_TUNER_COST_MODEL_KNOB_FEATURES_H_

#include <string>
#include <vector>

#include "compiler/space/config_proto.h"
#include "compiler/space/config_space.h"

namespace tessera {
namespace tuner {

/// Per knob, in order: a split gives log2 of each inner factor and of their product; a reorder
/// gives its permutation; an annotate gives a one-hot of the annotation of each axis; an other
/// knob gives sign(v)·log2(1+|v|).
std::vector<float> KnobFeatures(const std::vector<space::KnobSetting>& settings);

/// `KnobFeatures` of a configuration entity.
std::vector<float> KnobFeatures(const space::ConfigEntity& config);

/// Features of the workload that transfer across shapes: log2(1+n) of every integer argument of
/// the workload key, e.g. `dense.x86(1024,512,64,float32)` → [10.0, 9.0, 6.0]. Text arguments are
/// skipped.
std::vector<float> WorkloadFeatures(const std::string& workload_key);

/// The features the tuner's model uses for a candidate of `workload_key`: `KnobFeatures` followed
/// by `WorkloadFeatures`, so that records of other shapes of the template share one layout.
std::vector<float> CandidateFeatures(const std::vector<space::KnobSetting>& settings,
                                     const std::string& workload_key);

/// `CandidateFeatures` of a configuration entity.
std::vector<float> CandidateFeatures(const space::ConfigEntity& config,
                                     const std::string& workload_key);

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_COST_MODEL_KNOB_FEATURES_H_
