#include "compiler/space/config_proto.h"

#include <map>

#include "compiler/support/error.h"

namespace tessera {
namespace space {
namespace {

KnobKind KindFromTag(const std::string& tag, const std::string& knob_name) {
  for (KnobKind kind :
       {KnobKind::kSplit, KnobKind::kReorder, KnobKind::kAnnotate, KnobKind::kOther}) {
    if (tag == KnobKindTag(kind)) return kind;
  }
  TESSERA_USER_ERROR() << "config: knob '" << knob_name << "' has unknown kind tag '" << tag
                       << "' (expected sp, re, an or ot)";
  return KnobKind::kOther;
}

KnobSetting Setting(const tuning::KnobValue& knob) {
  KnobSetting setting;
  setting.name = knob.name();
  setting.kind = KindFromTag(knob.kind(), knob.name());
  if (setting.kind == KnobKind::kAnnotate) {
    TESSERA_USER_CHECK(knob.ints().empty())
        << "config: annotate knob '" << knob.name() << "' needs annotation names";
    for (const std::string& name : knob.names()) {
      setting.value.push_back(static_cast<int64_t>(AnnotationFromName(name)));
    }
    return setting;
  }
  TESSERA_USER_CHECK(knob.names().empty()) << "config: " << KnobKindName(setting.kind) << " knob '"
                                           << knob.name() << "' needs integers, not names";
  TESSERA_USER_CHECK(setting.kind != KnobKind::kOther || knob.ints_size() == 1)
      << "config: knob '" << knob.name() << "' needs exactly one value";
  setting.value.assign(knob.ints().begin(), knob.ints().end());
  return setting;
}

}  // namespace

tuning::Config ConfigToProto(const ConfigEntity& config) {
  tuning::Config out;
  const auto& knobs = config.knobs();
  for (size_t i = 0; i < knobs.size(); ++i) {
    const Knob& knob = knobs[i];
    const auto& value = knob.choices[config.choices()[i]];
    tuning::KnobValue* entry = out.add_knobs();
    entry->set_name(knob.name);
    entry->set_kind(KnobKindTag(knob.kind));
    for (int64_t v : value) {
      if (knob.kind == KnobKind::kAnnotate) {
        entry->add_names(AnnotationName(static_cast<Annotation>(v)));
      } else {
        entry->add_ints(v);
      }
    }
  }
  return out;
}

std::vector<KnobSetting> ConfigSettings(const tuning::Config& config) {
  std::vector<KnobSetting> settings;
  for (const tuning::KnobValue& knob : config.knobs()) settings.push_back(Setting(knob));
  return settings;
}

ConfigEntity ConfigFromProto(const ConfigSpace& space, const tuning::Config& config) {
  std::map<std::string, std::vector<int64_t>> values;
  for (const KnobSetting& setting : ConfigSettings(config)) {
    const Knob& knob = space.knob(setting.name);
    TESSERA_USER_CHECK(knob.kind == setting.kind)
        << "config: knob '" << setting.name << "' is a " << KnobKindName(knob.kind)
        << " knob in this space, but the config has a " << KnobKindName(setting.kind) << " value";
    TESSERA_USER_CHECK(values.emplace(setting.name, setting.value).second)
        << "config: knob '" << setting.name << "' appears twice";
  }
  return space.FromValues(values);
}

}  // namespace space
}  // namespace tessera
