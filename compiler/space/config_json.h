/// \file
/// The JSON form of a configuration, as stored in tuning records:
/// `{"index":12,"entity":[["tile_x","sp",[-1,8]],["order","re",[1,0]],["ann","an",["none","vec"]],
/// ["unroll","ot",4]]}`. The entity list, not the index, is authoritative: a record stays usable
/// when a template's space changes, as long as its knobs keep their names and choices.
#ifndef TESSERA_COMPILER_SPACE_CONFIG_JSON_H_
#define TESSERA_COMPILER_SPACE_CONFIG_JSON_H_

#include <string>
#include <vector>

#include "compiler/space/config_space.h"

namespace tessera {
namespace space {

/// One knob's chosen value, read from JSON without a space.
struct KnobSetting {
  std::string name;
  KnobKind kind = KnobKind::kOther;
  std::vector<int64_t> value;  ///< encoded as in `Knob::choices`
};

/// The JSON form of `config`.
std::string ConfigToJson(const ConfigEntity& config);

/// Reads the knob settings of a JSON config; throws `UserError` on malformed JSON, an unknown
/// kind tag or annotation name.
std::vector<KnobSetting> ParseConfigSettings(const std::string& json);

/// The configuration of `space` described by `json`; throws `UserError` on malformed JSON, an
/// unknown knob, a missing knob, a kind mismatch or a value that is not a choice of its knob.
ConfigEntity ConfigFromJson(const ConfigSpace& space, const std::string& json);

}  // namespace space
}  // namespace tessera

#endif  // TESSERA_COMPILER_SPACE_CONFIG_JSON_H_
