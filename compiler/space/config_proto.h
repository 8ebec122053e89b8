/// \file
/// A configuration as stored in tuning records: the `tessera.tuning.Config` message, one
/// `KnobValue` per knob (name, kind tag, value). The knob values, not the index, are
/// authoritative: a record stays usable when a template's space changes, as long as its knobs
/// keep their names and choices.
#ifndef TESSERA_COMPILER_SPACE_CONFIG_PROTO_H_
#define TESSERA_COMPILER_SPACE_CONFIG_PROTO_H_

#include <string>
#include <vector>

#include "compiler/space/config_space.h"
#include "proto/tuning.pb.h"

namespace tessera {
namespace space {

/// One knob's chosen value, read from a record without a space.
struct KnobSetting {
  std::string name;
  KnobKind kind = KnobKind::kOther;
  std::vector<int64_t> value;  ///< encoded as in `Knob::choices`
};

/// The message form of `config`.
tuning::Config ConfigToProto(const ConfigEntity& config);

/// The knob settings of `config`; throws `UserError` on an unknown kind tag or annotation name,
/// or a value of the wrong shape.
std::vector<KnobSetting> ConfigSettings(const tuning::Config& config);

/// The configuration of `space` that `config` describes; throws `UserError` on an unknown knob,
/// a missing knob, a kind mismatch or a value that is not a choice of its knob.
ConfigEntity ConfigFromProto(const ConfigSpace& space, const tuning::Config& config);

}  // namespace space
}  // namespace tessera

#endif  // TESSERA_COMPILER_SPACE_CONFIG_PROTO_H_
